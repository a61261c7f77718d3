import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { stringify } from 'yaml';
import type { RunResult } from '../../../src/core';
import type { DiagnosticsPort } from '../../../src/core/ports/checks';
import { Ticket } from '../../../src/core/schema/ticket';
import { LanguageServiceDiagnostics } from '../../../src/node/diagnostics/languageService';
import { EditorDiagnostics } from '../../../src/vscode/editorDiagnostics';
import { DEACTIVATE_WAIT_MS } from '../../../src/vscode/extension';
import { fileInFolder } from '../../../src/vscode/runPanel';
import { PROPOSAL_SCHEME } from '../../../src/vscode/proposalDocuments';
import { until } from '../../support/cliProcess';
import { alive, HANGING_TESTS, pidsWith } from '../../support/processes';
import { abs, api, folder, messagesDuring, runIds, withSettings } from './host';

/**
 * Runs inside code-server's extension host, on a temp copy of the blog-api fixture (the
 * workspace sets ticketRunner.model to scripted). Nothing here mocks vscode.
 */
/** Records the text editor tabs opened or closed from now until stop(), which returns them. */
function textTabsOpened(): { stop(): string[] } {
  const seen: string[] = [];
  const isText = (tab: vscode.Tab) => tab.input instanceof vscode.TabInputText || tab.input instanceof vscode.TabInputTextDiff;
  const sub = vscode.window.tabGroups.onDidChangeTabs((e) => {
    for (const tab of e.opened) if (isText(tab)) seen.push(`opened ${tab.label}`);
    for (const tab of e.closed) if (isText(tab)) seen.push(`closed ${tab.label}`);
  });
  return {
    stop() {
      sub.dispose();
      return seen;
    },
  };
}

const noFallback: DiagnosticsPort = {
  check: () => Promise.reject(new Error('not used')),
  // The editor offers no fix before its server has loaded the project: then the adapter asks the headless service, which offers none here.
  autofix: () => Promise.resolve({ applied: [], refused: [] }),
  resolveSymbol: () => Promise.resolve(null),
};

describe('Ticket Runner in a real VS Code (code-server)', () => {
  let runId: string;

  it("activates on the workspace's .tickets folder and contributes its commands", async () => {
    const a = await api();
    assert.ok(a.runs);
    const commands = await vscode.commands.getCommands(true);
    for (const c of ['ticketRunner.runTicket', 'ticketRunner.openRun', 'ticketRunner.rollbackRun', 'ticketRunner.setApiKey'])
      assert.ok(commands.includes(c), c);
  });

  it('the editor diagnostics adapter reports a real TypeScript error, and not a stale one after the fix, without opening a tab', async () => {
    const d = new EditorDiagnostics(folder(), { fallback: noFallback, quietMs: 5_000, ceilingMs: 45_000 });
    const opened = textTabsOpened();
    writeFileSync(abs('src/broken.ts'), "export const count: number = 'three';\n");
    const t = Date.now();
    const first = await d.check(['src/broken.ts'], new AbortController().signal);
    const err = first.diagnostics.find((x) => x.file === 'src/broken.ts');
    assert.ok(err, `a diagnostic for src/broken.ts (got ${JSON.stringify(first.diagnostics)})`);
    assert.equal(err.code, 'TS2322');
    assert.equal(err.line, 1);
    console.log(`    first diagnostics in ${Date.now() - t} ms`);
    writeFileSync(abs('src/broken.ts'), 'export const count: number = 3;\n');
    const t2 = Date.now();
    const second = await d.check(['src/broken.ts'], new AbortController().signal);
    assert.deepEqual(
      second.diagnostics.filter((x) => x.file === 'src/broken.ts'),
      [],
      'the error from before the write is not reported',
    );
    console.log(`    re-check after the write in ${Date.now() - t2} ms`);
    assert.deepEqual(opened.stop(), [], 'the check opened no editor tab');
  });

  it('a file with unsaved edits in the editor is checked as it is on disk, by the headless service', async () => {
    const file = 'src/dirty.ts';
    writeFileSync(abs(file), "export const size: number = 'large';\n");
    const doc = await vscode.workspace.openTextDocument(abs(file));
    const clean = new vscode.WorkspaceEdit();
    clean.replace(doc.uri, new vscode.Range(0, 0, doc.lineCount, 0), 'export const size: number = 3;\n');
    assert.ok(await vscode.workspace.applyEdit(clean));
    assert.ok(doc.isDirty, 'the editor holds unsaved edits that hide the error on disk');
    const d = new EditorDiagnostics(folder(), {
      fallback: new LanguageServiceDiagnostics(folder().uri.fsPath),
      quietMs: 300,
      ceilingMs: 45_000,
    });
    try {
      const result = await d.check([file], new AbortController().signal);
      const err = result.diagnostics.find((x) => x.file === file);
      assert.equal(err?.code, 'TS2322', `the error on disk is reported (got ${JSON.stringify(result.diagnostics)})`);
    } finally {
      const back = new vscode.WorkspaceEdit();
      back.replace(doc.uri, new vscode.Range(0, 0, doc.lineCount, 0), readFileSync(abs(file), 'utf8'));
      await vscode.workspace.applyEdit(back);
      await doc.save();
      d.dispose();
      rmSync(abs(file), { force: true });
    }
  });

  it('a code action repairs a missing import, through a WorkspaceEdit, only where allowed', async () => {
    const d = new EditorDiagnostics(folder(), { fallback: noFallback, quietMs: 5_000, ceilingMs: 45_000 });
    const file = 'src/handlers/limits.ts';
    writeFileSync(abs(file), 'export function cap(n: number): number {\n  return Math.min(n, MAX_PER_PAGE);\n}\n');
    // The editor's TypeScript server offers the import fix once it has loaded the project, which a
    // window that just opened may still be doing: asking again changes nothing while the file is not allowed.
    let refused = await d.autofix([file], () => false, new AbortController().signal);
    for (const end = Date.now() + 60_000; refused.refused.length === 0 && refused.applied.length === 0 && Date.now() < end;) {
      await new Promise((r) => setTimeout(r, 1_000));
      refused = await d.autofix([file], () => false, new AbortController().signal);
    }
    assert.equal(refused.applied.length, 0);
    assert.ok(refused.refused.length >= 1, 'the fix is refused when the file is not allowed');
    assert.doesNotMatch(readFileSync(abs(file), 'utf8'), /import/);
    // The server may answer nothing while it is still busy with the project (a loaded machine): ask again, as above.
    let fixed = await d.autofix([file], (p) => p === file, new AbortController().signal);
    for (const end = Date.now() + 60_000; fixed.applied.length === 0 && fixed.refused.length === 0 && Date.now() < end;) {
      await new Promise((r) => setTimeout(r, 1_000));
      fixed = await d.autofix([file], (p) => p === file, new AbortController().signal);
    }
    assert.ok(fixed.applied.length >= 1, `a fix applied (refused: ${JSON.stringify(fixed.refused)})`);
    assert.equal(fixed.applied[0]!.code, 'TS2304');
    assert.match(readFileSync(abs(file), 'utf8'), /import \{ MAX_PER_PAGE \} from ['"]\.\.\/utils\/pagination(\.js)?['"]/);
    const after = await d.check([file], new AbortController().signal);
    assert.deepEqual(
      after.diagnostics.filter((x) => x.category === 'error'),
      [],
    );
    // The edit went through the editor, so undo takes it back.
    const doc = await vscode.workspace.openTextDocument(abs(file));
    await vscode.window.showTextDocument(doc);
    await vscode.commands.executeCommand('undo');
    assert.doesNotMatch(doc.getText(), /import \{ MAX_PER_PAGE \}/);
    await vscode.commands.executeCommand('workbench.action.files.revert');
  });

  it('a structural fix is not made on a file with changes you have not saved, by the editor or the headless service', async () => {
    // The editor's server cannot vouch for a buffer that is not the disk, so the headless service
    // is asked, which would write the file on disk under the user's buffer.
    const d = new EditorDiagnostics(folder(), {
      fallback: new LanguageServiceDiagnostics(folder().uri.fsPath),
      quietMs: 300,
      ceilingMs: 45_000,
    });
    const files = vscode.workspace.getConfiguration('files', folder().uri);
    const autoSave = files.inspect('autoSave')?.workspaceValue;
    // The user's change stays unsaved for the whole test.
    await files.update('autoSave', 'off', vscode.ConfigurationTarget.Workspace);
    const file = 'src/handlers/capped.ts';
    const onDisk = 'export function capped(n: number): number {\n  return Math.min(n, MAX_PER_PAGE);\n}\n';
    writeFileSync(abs(file), onDisk);
    const doc = await vscode.workspace.openTextDocument(abs(file));
    const typed = new vscode.WorkspaceEdit();
    typed.insert(doc.uri, new vscode.Position(doc.lineCount, 0), '// typed, not saved\n');
    assert.ok(await vscode.workspace.applyEdit(typed));
    assert.ok(doc.isDirty);
    try {
      const result = await d.autofix([file], (p) => p === file, new AbortController().signal);
      assert.deepEqual(result.applied, [], 'no fix was made');
      assert.ok(
        result.refused.some(
          (r) => r.code === 'TS2304' && /\(not applied: src\/handlers\/capped\.ts has changes you have not saved\)$/.test(r.description),
        ),
        JSON.stringify(result.refused),
      );
      assert.equal(readFileSync(abs(file), 'utf8'), onDisk, 'nothing was saved');
      assert.ok(doc.isDirty, 'the buffer still holds the unsaved change');
      assert.equal(doc.getText(), `${onDisk}// typed, not saved\n`, 'and nothing else');
    } finally {
      await vscode.window.showTextDocument(doc);
      await vscode.commands.executeCommand('workbench.action.files.revert');
      await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
      await files.update('autoSave', autoSave, vscode.ConfigurationTarget.Workspace);
      d.dispose();
      rmSync(abs(file), { force: true });
    }
  });

  it('New Ticket writes a ticket that validates but cannot run until written; Validate shows findings at their JSON paths; Render shows the tests beside', async () => {
    const uri = await vscode.commands.executeCommand<vscode.Uri | undefined>('ticketRunner.newTicket', 'NEW-1', 'Sort posts by date');
    try {
      assert.ok(uri, 'the command returns the new ticket');
      assert.equal(path.relative(folder().uri.fsPath, uri.fsPath), path.join('.tickets', 'NEW-1.ticket.json'));
      const text = readFileSync(uri.fsPath, 'utf8');
      assert.equal((JSON.parse(text) as Ticket).title, 'Sort posts by date');
      assert.equal(
        await vscode.commands.executeCommand('ticketRunner.newTicket', 'NEW-1', 'again'),
        undefined,
        'never over an existing ticket',
      );
      assert.equal(readFileSync(uri.fsPath, 'utf8'), text);
      const fresh = await vscode.commands.executeCommand<{ findings: { path: string; severity: string }[] }>(
        'ticketRunner.validateTicket',
        uri,
      );
      assert.ok(
        fresh.findings.some((f) => f.path === '$.description' && f.severity === 'error'),
        JSON.stringify(fresh.findings),
      );
      const onDescription = vscode.languages.getDiagnostics(uri).find((d) => d.message.includes('placeholder'));
      assert.ok(
        onDescription && text.split('\n')[onDescription.range.start.line]!.includes('"description"'),
        'the finding sits on the description line',
      );

      const blog3 = vscode.Uri.file(abs('.tickets/BLOG-3.ticket.json'));
      await vscode.commands.executeCommand('ticketRunner.validateTicket', blog3);
      const refs = vscode.languages.getDiagnostics(blog3).filter((d) => d.severity === vscode.DiagnosticSeverity.Error);
      assert.equal(refs.length, 1, refs.map((d) => d.message).join('\n'));
      const doc = await vscode.workspace.openTextDocument(blog3);
      assert.match(doc.getText(refs[0]!.range), /publishedAt/, 'the error covers the refs entry');

      const shown = await vscode.commands.executeCommand<vscode.Uri | undefined>(
        'ticketRunner.renderTicket',
        vscode.Uri.file(abs('.tickets/BLOG-1.ticket.json')),
      );
      assert.ok(shown);
      assert.match(
        (await vscode.workspace.openTextDocument(shown)).getText(),
        /^\/\/ Generated by Ticket Runner[\s\S]*rejects perPage above 100/,
      );
      assert.equal(existsSync(abs('test/ticket/BLOG-1.test.ts')), false, 'rendering writes nothing');
    } finally {
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      if (uri) rmSync(uri.fsPath, { force: true });
    }
  });

  it("YAML tickets: New Ticket writes one, Validate Ticket's findings sit at their YAML place; Draft Ticket from Text opens an unsaved, validated draft with its rendered tests and runs nothing", async () => {
    const yamlUri = await vscode.commands.executeCommand<vscode.Uri | undefined>(
      'ticketRunner.newTicket',
      'NEW-Y',
      'Sort posts by date',
      'yaml',
    );
    const script = abs('.tickets/DRAFT-1.script.json');
    try {
      assert.ok(yamlUri);
      assert.equal(path.relative(folder().uri.fsPath, yamlUri.fsPath), path.join('.tickets', 'NEW-Y.ticket.yaml'));
      const text = readFileSync(yamlUri.fsPath, 'utf8');
      assert.equal(
        await vscode.commands.executeCommand('ticketRunner.newTicket', 'NEW-Y', 'again', 'json'),
        undefined,
        'one ticket per id, whatever the format',
      );
      await vscode.commands.executeCommand('ticketRunner.validateTicket', yamlUri);
      const onDescription = vscode.languages.getDiagnostics(yamlUri).find((d) => d.message.includes('placeholder'));
      assert.ok(
        onDescription && text.split('\n')[onDescription.range.start.line]!.startsWith('description:'),
        'the finding sits on the YAML description line',
      );

      const blog1 = JSON.parse(readFileSync(abs('.tickets/BLOG-1.ticket.json'), 'utf8')) as Record<string, unknown>;
      writeFileSync(script, JSON.stringify({ drafter: [{ text: 'not a ticket' }, { structured: blog1 }] }));
      const before = readdirSync(abs('.tickets')).sort();
      const runsBefore = runIds();
      const { value: drafted, shown } = await messagesDuring(
        async () =>
          await vscode.commands.executeCommand<{ uri: vscode.Uri; draft: { text: string; rejected: string[] } } | undefined>(
            'ticketRunner.draftTicket',
            { text: 'GET /posts must answer 400 above perPage 100.', id: 'DRAFT-1', format: 'yaml' },
          ),
      );
      assert.ok(drafted, 'the command returns the draft');
      const told = shown.find((m) => m.text.startsWith('Draft DRAFT-1:'))?.text ?? '';
      assert.match(
        told,
        /It took 2 model calls, \$0\.0000, 1 recovery step \(rung 2 \(a malformed answer\): answer 1 was refused \(the answer is not a JSON object and called no tool\); asking again with the reason\)\.$/,
        'the rungs and the cost, in words',
      );
      assert.equal(drafted.uri.scheme, 'untitled', 'unsaved');
      assert.ok(drafted.uri.path.endsWith('/.tickets/DRAFT-1.ticket.yaml'));
      assert.equal(drafted.draft.rejected.length, 1, 'the prose answer was refused and asked again');
      const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === drafted.uri.toString());
      assert.equal(doc?.getText(), drafted.draft.text);
      assert.ok(
        vscode.workspace.textDocuments.some(
          (d) => d.uri.scheme === 'ticket-runner-rendered' && /rejects perPage above 100/.test(d.getText()),
        ),
        'the rendered tests are shown',
      );
      assert.deepEqual(readdirSync(abs('.tickets')).sort(), before, 'nothing saved');
      assert.deepEqual(runIds(), runsBefore, 'nothing ran');

      writeFileSync(abs('.tickets/DRAFT-2.script.json'), JSON.stringify({ drafter: [{ fault: 'transportError' }] }));
      const failed = await messagesDuring(async () =>
        vscode.commands.executeCommand('ticketRunner.draftTicket', {
          text: 'GET /posts must answer 400 above perPage 100.',
          id: 'DRAFT-2',
          format: 'json',
        }),
      );
      assert.equal(failed.value, undefined);
      assert.deepEqual(
        failed.shown.map((m) => [m.level, m.text]),
        [
          [
            'error',
            'Draft Ticket from Text: the model failed while drafting (scripted model: recorded transport failure (drafter #1)); 1 model call, $0.0000, no rung fired; nothing was written: run the draft again Your text is kept: run Draft Ticket from Text again to retry it.',
          ],
        ],
      );
      assert.deepEqual(readdirSync(abs('.tickets')).sort(), [...before, 'DRAFT-2.script.json'].sort(), 'nothing saved');
    } finally {
      rmSync(abs('.tickets/DRAFT-2.script.json'), { force: true });
      await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      if (yamlUri) rmSync(yamlUri.fsPath, { force: true });
      rmSync(script, { force: true });
    }
  });

  it("the ticket language server shows a broken ticket's problems as it opens, and its quick fix repairs the scope path", async () => {
    const ticket = abs('.tickets/LSP-1.ticket.json');
    const broken = JSON.parse(readFileSync(abs('.tickets/BLOG-1.ticket.json'), 'utf8')) as Ticket;
    broken.id = 'LSP-1';
    broken.scope.read = ['src/utils/pagnation.ts'];
    broken.testPlan.files[0]!.path = 'test/ticket/LSP-1.test.ts';
    writeFileSync(ticket, `${JSON.stringify(broken, null, 2)}\n`);
    const uri = vscode.Uri.file(ticket);
    try {
      const doc = await vscode.workspace.openTextDocument(uri);
      await vscode.window.showTextDocument(doc);
      const missing = () => vscode.languages.getDiagnostics(uri).find((d) => d.message.includes('"src/utils/pagnation.ts" does not exist'));
      await until('the language server to publish the missing scope path', () => missing() !== undefined, 90_000);
      const problem = missing()!;
      assert.equal(problem.severity, vscode.DiagnosticSeverity.Error);
      assert.equal(doc.getText(problem.range), '"src/utils/pagnation.ts"', 'the error covers the path itself');
      // The on-save validation is gone: the server is the one source of a ticket's diagnostics.
      assert.equal(vscode.languages.getDiagnostics(uri).filter((d) => d.message === problem.message).length, 1, 'reported once');

      const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', uri, problem.range);
      const fix = actions.find((a) => a.title === 'Change to "src/utils/pagination.ts"');
      assert.ok(fix?.edit, actions.map((a) => a.title).join(', '));
      assert.ok(await vscode.workspace.applyEdit(fix.edit));
      assert.deepEqual((JSON.parse(doc.getText()) as Ticket).scope.read, ['src/utils/pagination.ts']);
      await until(
        'the fixed ticket to have no scope.read problem',
        () => missing() === undefined && !vscode.languages.getDiagnostics(uri).some((d) => d.message.includes('scope.read')),
        30_000,
      );
    } finally {
      await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
      rmSync(ticket, { force: true });
    }
  });

  it('the ticket language server serves a YAML ticket too: its problems show as it opens, once, at their YAML place', async () => {
    const ticket = abs('.tickets/LSP-2.ticket.yaml');
    const broken = JSON.parse(readFileSync(abs('.tickets/BLOG-1.ticket.json'), 'utf8')) as Ticket;
    delete broken.$schema;
    broken.id = 'LSP-2';
    broken.scope.read = ['src/utils/pagnation.ts'];
    broken.testPlan.files[0]!.path = 'test/ticket/LSP-2.test.ts';
    const text = stringify(broken, { lineWidth: 0 });
    writeFileSync(ticket, text);
    const uri = vscode.Uri.file(ticket);
    try {
      const doc = await vscode.workspace.openTextDocument(uri);
      await vscode.window.showTextDocument(doc);
      const missing = () =>
        vscode.languages.getDiagnostics(uri).filter((d) => d.message.includes('"src/utils/pagnation.ts" does not exist'));
      await until("the language server to publish the YAML ticket's missing scope path", () => missing().length > 0, 90_000);
      assert.equal(missing().length, 1, 'one owner reports it');
      assert.equal(doc.getText(missing()[0]!.range), 'src/utils/pagnation.ts', 'the error covers the YAML scalar itself');
    } finally {
      await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
      rmSync(ticket, { force: true });
    }
  });

  it("the ticket language server completes a test import's names from its module's exports, and a scope.write path that does not exist is an error with its two fixes", async () => {
    const ticket = abs('.tickets/LSP-3.ticket.json');
    const t = JSON.parse(readFileSync(abs('.tickets/BLOG-1.ticket.json'), 'utf8')) as Ticket;
    t.id = 'LSP-3';
    t.scope.write = ['src/handlers/psts.ts'];
    t.testPlan.files[0]!.path = 'test/ticket/LSP-3.test.ts';
    t.testPlan.files[0]!.imports = [{ from: '../../src/handlers/posts', names: ['getP'] }];
    writeFileSync(ticket, `${JSON.stringify(t, null, 2)}\n`);
    const uri = vscode.Uri.file(ticket);
    try {
      const doc = await vscode.workspace.openTextDocument(uri);
      await vscode.window.showTextDocument(doc);
      const wrong = () => vscode.languages.getDiagnostics(uri).find((d) => d.message.includes('"src/handlers/psts.ts" does not exist'));
      await until('the language server to publish the scope.write path that does not exist', () => wrong() !== undefined, 90_000);
      const problem = wrong()!;
      assert.equal(problem.severity, vscode.DiagnosticSeverity.Error);
      assert.equal(
        problem.message,
        'scope.write[0] "src/handlers/psts.ts" does not exist: fix the path (did you mean src/handlers/posts.ts?), or, if the ticket creates it, list what it will export: the ticket adds those declarations to it before the Coder starts',
      );
      assert.equal(doc.getText(problem.range), '"src/handlers/psts.ts"');

      const at = doc.positionAt(doc.getText().indexOf('"getP"') + 5);
      const completion = await vscode.commands.executeCommand<vscode.CompletionList>('vscode.executeCompletionItemProvider', uri, at);
      const items = new Map(completion.items.map((i) => [typeof i.label === 'string' ? i.label : i.label.label, i]));
      assert.ok(items.has('listPosts') && items.has('getPostHandler'), [...items.keys()].join(', '));
      assert.match(String(items.get('listPosts')!.detail), /^\(req: \{ query: Record<string, string \| undefined>; \}\) =>/);

      const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', uri, problem.range);
      const titles = actions.map((a) => a.title);
      assert.ok(titles.includes('Change to "src/handlers/posts.ts"'), titles.join(', '));
      const declare = actions.find(
        (a) => a.title === 'List what src/handlers/psts.ts will export: the ticket adds those declarations to it before the Coder starts',
      );
      assert.ok(declare?.edit, titles.join(', '));
      assert.ok(await vscode.workspace.applyEdit(declare.edit));
      const ops = (JSON.parse(doc.getText()) as { ops: { op: string; file: string }[] }).ops;
      assert.deepEqual(
        ops.map((o) => [o.op, o.file]),
        [['declare', 'src/handlers/psts.ts']],
      );
      await until('the declared file to be no scope.write problem', () => wrong() === undefined, 30_000);
    } finally {
      await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
      rmSync(ticket, { force: true });
    }
  });

  it('"Run Ticket" runs a scripted ticket to the end, and every save you make beside it stays, with no conflict', async () => {
    const a = await api();
    const ticket = vscode.Uri.file(abs('.tickets/BLOG-1.ticket.json'));
    const t = Date.now();
    const opened = textTabsOpened();
    // The user keeps working: a numbered line typed and saved every 300 ms in a file the run only
    // reads and in one it has no business with, for the whole run, through the editor's buffers.
    const saved = ['src/utils/pagination.ts', 'README.md'];
    const originals = saved.map((f) => readFileSync(abs(f), 'utf8'));
    const docs = await Promise.all(saved.map((f) => vscode.workspace.openTextDocument(abs(f))));
    let saves = 0;
    let running = true;
    const failed: string[] = [];
    const before = runIds().length;
    const saving = (async () => {
      // From the run's start: at Run Ticket, a scope file caught between an edit and its save is
      // asked about (a modal), as it should be.
      while (running && runIds().length === before) await new Promise((r) => setTimeout(r, 100));
      while (running) {
        saves++;
        for (const doc of docs) {
          const edit = new vscode.WorkspaceEdit();
          edit.insert(doc.uri, new vscode.Position(doc.lineCount, 0), `// saved ${saves}\n`);
          if (!(await vscode.workspace.applyEdit(edit)) || !(await doc.save()))
            failed.push(`${path.basename(doc.uri.fsPath)} save ${saves}`);
        }
        await new Promise((r) => setTimeout(r, 300));
      }
    })();
    let result: RunResult | undefined;
    try {
      result = await vscode.commands.executeCommand<RunResult | undefined>('ticketRunner.runTicket', ticket);
    } finally {
      running = false;
      await saving;
    }
    assert.deepEqual(failed, [], 'every save went through: the file on disk never changed under the editor');
    assert.ok(saves >= 5, `the user saved during the run (${saves} times)`);
    for (const [i, doc] of docs.entries()) {
      const disk = readFileSync(abs(saved[i]!), 'utf8');
      const lines = Array.from({ length: saves }, (_, n) => `// saved ${n + 1}`);
      assert.equal(disk, `${originals[i]}${lines.join('\n')}\n`, `${saved[i]} holds every save, in order`);
      assert.ok(!doc.isDirty, `${saved[i]}'s buffer is saved`);
      assert.equal(doc.getText(), disk, `${saved[i]}'s buffer is what is on disk`);
    }
    for (const [i, f] of saved.entries()) writeFileSync(abs(f), originals[i]!);
    assert.deepEqual(opened.stop(), [], 'the run opened no editor tab: only its own run view');
    assert.ok(result, 'the command returns the run');
    runId = result.runId;
    console.log(
      `    BLOG-1 ran in ${Date.now() - t} ms: ${result.state.status}; diagnostics per attempt ${result.state.attempts.map((x) => x.diagnostics?.durationMs).join(', ')} ms`,
    );
    assert.equal(result.state.status, 'passed', JSON.stringify(result.state.finished));
    assert.equal(result.state.model?.scripted, true);
    const diagnosed = result.state.attempts.filter((x) => x.diagnostics);
    assert.ok(diagnosed.length >= 1, 'the diagnostics check ran');
    const log = readFileSync(path.join(folder().uri.fsPath, '.ticket-runner', 'runs', runId, 'events.jsonl'), 'utf8');
    assert.match(log.trim().split('\n').pop()!, /"type":"run\.finished".*"outcome":"passed"/);
    assert.ok(a.panels.panelOf(runId), 'the run opened in its webview');
  });

  /** The run views opened and closed from now on, by their tab labels, in order. */
  function runViewTabs(): { seen: string[]; sub: vscode.Disposable } {
    const runView = (tab: vscode.Tab) => tab.input instanceof vscode.TabInputWebview && tab.input.viewType.includes('ticketRunner');
    const seen: string[] = [];
    const sub = vscode.window.tabGroups.onDidChangeTabs((e) => {
      for (const tab of e.opened) if (runView(tab)) seen.push(`opened ${tab.label}`);
      for (const tab of e.closed) if (runView(tab)) seen.push(`closed ${tab.label}`);
    });
    return { seen, sub };
  }

  it('a run that never starts closes the run view it opened for itself, and nothing else', async () => {
    // The run view opens as the ticket is chosen, so its page loads while the run starts: a run
    // refused before its first event must not leave that view behind, blank.
    const broken = abs('.tickets/NOSTART-1.ticket.json');
    writeFileSync(broken, '{ "id": "NOSTART-1", ');
    const { seen, sub } = runViewTabs();
    const before = runIds().length;
    try {
      const result = await vscode.commands.executeCommand('ticketRunner.runTicket', vscode.Uri.file(broken));
      assert.equal(result, undefined, 'the run did not start');
      await until('the run view to close', () => seen.length >= 2, 10_000).catch(() => undefined);
      assert.deepEqual(seen, ['opened Run: NOSTART-1', 'closed Run: NOSTART-1']);
      assert.equal(runIds().length, before, 'no run was recorded');
    } finally {
      sub.dispose();
      rmSync(broken, { force: true });
    }
  });

  it('Run Ticket from the palette opens no view behind the list: backing out of it leaves no tab and no run', async () => {
    // With a ticket in the active editor, Run Ticket runs it: no editor here, so the list shows.
    // An empty "Run Ticket" tab behind the list would take the editor for a run not yet chosen.
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    const { seen, sub } = runViewTabs();
    const before = runIds().length;
    try {
      let settled = false;
      const run = Promise.resolve(vscode.commands.executeCommand('ticketRunner.runTicket')).finally(() => (settled = true));
      // Escape on the list, until it has shown and taken it.
      await until(
        'the pick to close',
        () => {
          if (!settled) void vscode.commands.executeCommand('workbench.action.closeQuickOpen');
          return settled;
        },
        20_000,
      );
      assert.equal(await run, undefined, 'no run without a ticket');
      await new Promise((r) => setTimeout(r, 1_000));
      assert.deepEqual(seen, [], 'no run view opened');
      assert.equal(runIds().length, before, 'no run was recorded');
    } finally {
      sub.dispose();
    }
  });

  it('the run inspector shows the run, its attempts and their checks', async () => {
    const a = await api();
    const roots = a.tree.getChildren();
    const run = roots.find((r) => r.runId === runId);
    assert.ok(run, 'the run is in the tree');
    assert.equal(run.label, 'BLOG-1', 'the ticket; its title is in the tooltip');
    assert.equal(run.icon, 'pass');
    const attempts = a.tree.getChildren(run).filter((c) => c.contextValue === 'attempt');
    assert.ok(attempts.length >= 1);
    const checks = a.tree.getChildren(attempts[attempts.length - 1]).map((c) => c.contextValue);
    assert.ok(checks.includes('tests'), checks.join());
    const item = a.tree.getTreeItem(run);
    assert.equal((item.iconPath as vscode.ThemeIcon).id, 'pass');
    assert.equal(item.contextValue, 'run.passed');
  });

  it('a cancel stops the run cleanly, and the log records run.finished cancelled', async () => {
    const a = await api();
    const { startRun } = await import('../../../src/core/index.js');
    // The progress notification's Cancel: its token aborts the run's controller, which the service owns.
    const cancel = new vscode.CancellationTokenSource();
    const opened = textTabsOpened();
    const result = await a.runs.drive(
      folder(),
      '.tickets/BLOG-1.ticket.json',
      (deps, signal) => startRun(deps, { ticketPath: '.tickets/BLOG-1.ticket.json', signal }),
      {
        cancel: cancel.token,
        onEvent: (e) => {
          if (e.type === 'tests.materialized') cancel.cancel();
        },
      },
    );
    cancel.dispose();
    assert.deepEqual(opened.stop(), [], 'a cancelled run opened and closed no editor tab');
    assert.equal(result.state.status, 'cancelled');
    assert.deepEqual(result.state.finished?.reason, { kind: 'cancelled' });
    assert.equal(a.runs.isActive(result.runId), false);
    await vscode.commands.executeCommand('ticketRunner.rollbackRun', result.runId, true);
  });

  it("the run view's Cancel stops the run it names, and answers false for a run this window does not drive", async () => {
    const a = await api();
    const { startRun } = await import('../../../src/core/index.js');
    assert.equal(a.runs.cancel('no-such-run'), false);
    let asked: boolean | undefined;
    const result = await a.runs.drive(
      folder(),
      '.tickets/BLOG-1.ticket.json',
      (deps, signal) => startRun(deps, { ticketPath: '.tickets/BLOG-1.ticket.json', signal }),
      {
        onEvent: (e) => {
          if (e.type === 'tests.materialized' && asked === undefined) asked = a.runs.cancel(e.runId);
        },
      },
    );
    assert.equal(asked, true);
    assert.equal(result.state.status, 'cancelled');
    assert.equal(a.runs.cancel(result.runId), false, 'a finished run has nothing to cancel');
    await vscode.commands.executeCommand('ticketRunner.rollbackRun', result.runId, true);
  });

  it('a correction opens in the diff editor only when asked: the ticket and the rendered test, before and after, as read-only virtual documents', async () => {
    const a = await api();
    const { startRun } = await import('../../../src/core/index.js');
    const opened = textTabsOpened();
    const result = await a.runs.drive(folder(), '.tickets/BLOG-2.ticket.json', (deps, signal) =>
      startRun(deps, { ticketPath: '.tickets/BLOG-2.ticket.json', signal }),
    );
    assert.deepEqual(opened.stop(), [], 'the run opened no tab');
    assert.equal(result.state.status, 'needsOperator', JSON.stringify(result.state.finished));
    const c = result.state.corrections.find((x) => x.status === 'pending')!;
    assert.equal(c.request.proposal.kind, 'testPlan');
    const diffTabs = () =>
      vscode.window.tabGroups.all
        .flatMap((g) => g.tabs)
        .filter((t) => t.input instanceof vscode.TabInputTextDiff && t.input.original.scheme === PROPOSAL_SCHEME);
    assert.equal(diffTabs().length, 0, 'no diff is open before the user asks');
    try {
      const asked = textTabsOpened();
      const ticket = await a.panels.proposals.show(result.runId, c.request.id);
      const testFile = result.state.testFiles[0]!.path;
      const test = await a.panels.proposals.show(result.runId, c.request.id, testFile);
      const tabs = diffTabs().map((t) => t.input as vscode.TabInputTextDiff);
      assert.deepEqual(
        tabs.map((t) => [t.original.toString(), t.modified.toString()]).sort(),
        [
          [ticket.before.toString(), ticket.after.toString()],
          [test.before.toString(), test.after.toString()],
        ].sort(),
      );
      assert.equal(ticket.before.path, `/${result.runId}/${c.request.id}/before/ticket/.tickets/BLOG-2.ticket.json`);
      assert.equal(test.after.path, `/${result.runId}/${c.request.id}/after/test/${testFile}`);
      // What was opened is the two diffs asked for, and nothing else.
      assert.equal(asked.stop().length, 2);
      const text = async (u: vscode.Uri) => (await vscode.workspace.openTextDocument(u)).getText();
      const onDisk = readFileSync(abs('.tickets/BLOG-2.ticket.json'), 'utf8');
      // Both sides are the ticket as its schema reads it (defaults filled in): the diff shows meaning, not layout.
      assert.deepEqual(
        (JSON.parse(await text(ticket.before)) as Ticket).testPlan,
        Ticket.parse(JSON.parse(onDisk)).testPlan,
        'the left side is the ticket as it is',
      );
      assert.deepEqual(
        (JSON.parse(await text(ticket.after)) as Ticket).testPlan,
        (c.request.proposal as { testPlan: unknown }).testPlan,
        'the right side is what Accept writes',
      );
      assert.notEqual(await text(test.before), await text(test.after));
      assert.match(await text(test.after), /assert\./, 'the rendered test is code');
      assert.equal(readFileSync(abs('.tickets/BLOG-2.ticket.json'), 'utf8'), onDisk, 'showing the diff wrote nothing');
    } finally {
      // The run's files go back first: a later test's run would otherwise be asked about them.
      await vscode.commands.executeCommand('ticketRunner.rollbackRun', result.runId, true);
      // All at once: closing one diff tab can make the other's Tab object stale.
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    }
  });

  it("opens a file a run view names only inside the run's folder: a sibling that shares its prefix is refused", () => {
    const base = folder().uri;
    const sibling = `../${path.basename(base.fsPath)}-other/secret.ts`;
    assert.equal(fileInFolder(base, sibling), undefined);
    assert.equal(fileInFolder(base, '../../etc/passwd'), undefined);
    assert.equal(fileInFolder(base, 'src/handlers/../handlers/posts.ts')?.fsPath, abs('src/handlers/posts.ts'));
  });

  it('Roll Back Run refuses to overwrite a file the user changed since the run, and changes nothing', async () => {
    const a = await api();
    const file = abs('src/handlers/posts.ts');
    appendFileSync(file, "\n// the user's edit after the run\n");
    const edited = readFileSync(file, 'utf8');
    const result = await vscode.commands.executeCommand('ticketRunner.rollbackRun', runId, true);
    assert.equal(result, undefined, 'no rollback happened');
    assert.equal(readFileSync(file, 'utf8'), edited, 'the edit is still there');
    assert.equal(a.runs.get(runId)?.state.rolledBack, false);
    // The user takes the edit back; now the rollback below may proceed.
    writeFileSync(file, edited.replace("\n// the user's edit after the run\n", ''));
  });

  it('rolls the run back and deletes it from the commands', async () => {
    const a = await api();
    await vscode.commands.executeCommand('ticketRunner.rollbackRun', runId, true);
    assert.equal(a.runs.get(runId)?.state.rolledBack, true);
    await vscode.commands.executeCommand('ticketRunner.deleteRun', runId, true);
    assert.equal(a.runs.get(runId), undefined);
    assert.ok(!a.tree.getChildren().some((r) => r.runId === runId));
  });

  // After the passed run above is rolled back: a scripted run would first be asked about its change.
  it('what deactivate() does stops a run this window drives: its test processes killed, the log ends cancelled, in time', async function () {
    this.timeout(180_000);
    const a = await api();
    const token = String(Date.now() % 100000);
    writeFileSync(abs('hang.js'), HANGING_TESTS);
    let runId: string | undefined;
    try {
      await withSettings({ testCommand: `node hang.js ${token}` }, async () => {
        const run = vscode.commands.executeCommand<RunResult | undefined>(
          'ticketRunner.runTicket',
          vscode.Uri.file(abs('.tickets/BLOG-1.ticket.json')),
        );
        await until(
          'the hanging tests to start',
          () => pidsWith(`hang.js ${token}`).length > 0 && pidsWith(`299.${token}`).length > 0,
          120_000,
        );
        const pids = [...pidsWith(`hang.js ${token}`), ...pidsWith(`299.${token}`)];
        runId = a.runs.list().find((r) => a.runs.isActive(r.state.runId))?.state.runId;
        assert.ok(runId, 'the run is one this window drives');
        const t = Date.now();
        assert.equal(await a.runs.stopAll(DEACTIVATE_WAIT_MS), true, 'every run recorded its end within the deactivate window');
        console.log(`    the run recorded its cancel ${Date.now() - t} ms after the abort`);
        const result = await run;
        assert.equal(result?.state.status, 'cancelled', JSON.stringify(result?.state.finished));
        const last = readFileSync(abs(`.ticket-runner/runs/${runId}/events.jsonl`), 'utf8')
          .trim()
          .split('\n')
          .pop()!;
        assert.match(last, /"type":"run\.finished".*"outcome":"cancelled"/);
        await until('the test processes to be gone', () => !pids.some(alive), 5_000);
        assert.equal(existsSync(abs('.ticket-runner/lock')), false, 'the workspace lock is released');
      });
    } finally {
      rmSync(abs('hang.js'), { force: true });
    }
    await vscode.commands.executeCommand('ticketRunner.rollbackRun', runId, true);
  });

  it('shows a run whose process was killed (kill -9) as interrupted, and Resume Run takes it to the end', async function () {
    this.timeout(240_000);
    const a = await api();
    const ext = vscode.extensions.all.find((e) => (e.packageJSON as { name?: unknown }).name === 'ticket-runner')!;
    const runs = abs('.ticket-runner/runs');
    const before = new Set(existsSync(runs) ? readdirSync(runs) : []);
    const cli = spawn(
      process.execPath,
      [
        path.join(ext.extensionPath, 'dist', 'cli.js'),
        'run',
        '.tickets/BLOG-1.ticket.json',
        '--model',
        'scripted',
        '--workspace',
        folder().uri.fsPath,
      ],
      { stdio: 'ignore' },
    );
    const exited = new Promise((resolve) => cli.on('exit', resolve));
    let id: string | undefined;
    const until = Date.now() + 120_000;
    // Killed (as kill -9 or a crash would) inside its second attempt.
    while (Date.now() < until) {
      id = readdirSync(runs).find((r) => !before.has(r));
      const log = id && existsSync(path.join(runs, id, 'events.jsonl')) ? readFileSync(path.join(runs, id, 'events.jsonl'), 'utf8') : '';
      if (/"type":"coder\.attempted","attempt":2/.test(log)) break;
      await new Promise((r) => setTimeout(r, 25));
    }
    assert.ok(id, 'the CLI started a run');
    cli.kill('SIGKILL');
    await exited;
    await a.runs.refresh(); // As a window that did not drive it sees it: the runs are read again from their logs.
    assert.equal(a.runs.statusOf(id), 'interrupted');
    const node = a.tree.getChildren().find((r) => r.runId === id)!;
    assert.equal(a.tree.getTreeItem(node).contextValue, 'run.interrupted');
    const resumed = await vscode.commands.executeCommand<RunResult | undefined>('ticketRunner.resumeRun', id);
    assert.ok(resumed, 'Resume Run returns the run');
    assert.equal(resumed.state.status, 'passed', JSON.stringify(resumed.state.finished));
    assert.equal(a.runs.statusOf(id), 'passed');
    // The workspace as the fixture was, for the suites after this one.
    await vscode.commands.executeCommand('ticketRunner.rollbackRun', id, true);
    assert.equal(a.runs.get(id)?.state.rolledBack, true);
  });
});
