import { strict as assert } from 'node:assert';
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Diagnostic } from 'vscode-languageserver';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { parse as parseYaml } from 'yaml';
import type { DiagnosticsPort } from '../../../src/core/ports/checks';
import type { Ticket } from '../../../src/core/schema/ticket';
import { ticketText } from '../../../src/core/ticket/ticketTemplate';
import { createLanguageServiceDiagnostics } from '../../../src/node/diagnostics/languageService';
import { FsWorkspace } from '../../../src/node/workspace/fsWorkspace';
import { codeActions } from '../../../src/lsp/codeActions';
import { complete } from '../../../src/lsp/completion';
import { ticketFindings, type PlacedFinding } from '../../../src/lsp/ticketFindings';
import { ticketSource } from '../../../src/lsp/ticketFormats';
import type { WorkspaceFacts } from '../../../src/lsp/ticketWorkspace';
import { copyFixture } from '../../support/tempWorkspace';

/** A ticket as the author writes it: its ops may be ones the schema does not know yet. */
type Draft = Omit<Ticket, 'ops'> & { ops?: object[] };

/**
 * The ticket language server's authoring help, called as the server calls it, over a copy of
 * blog-api and the language service in this thread (no worker, no process).
 */
describe('ticket authoring that knows the code: import names, scope.write paths', function () {
  this.timeout(60_000);
  let ws: ReturnType<typeof copyFixture>;
  let facts: WorkspaceFacts;
  let diagnostics: DiagnosticsPort;
  before(() => {
    ws = copyFixture();
    const workspace = new FsWorkspace(ws.root);
    diagnostics = createLanguageServiceDiagnostics(ws.root);
    facts = {
      checks: { workspace, diagnostics },
      listFiles: async () => (await Promise.all(['src', 'test'].map((d) => workspace.listFiles(d)))).flat().sort(),
    };
  });
  after(() => {
    diagnostics.dispose?.();
    ws.dispose();
  });

  /** BLOG-1 with changes, in a format. */
  function ticket(format: 'json' | 'yaml', change: (t: Draft) => void): { file: string; text: string } {
    const t = JSON.parse(readFileSync(path.join(ws.root, '.tickets/BLOG-1.ticket.json'), 'utf8')) as Draft;
    delete t.$schema;
    t.id = 'LSP-7';
    t.testPlan.files[0]!.path = 'test/ticket/LSP-7.test.ts';
    change(t);
    return { file: `.tickets/LSP-7.ticket.${format}`, text: ticketText(t, format) };
  }

  /** The completion labels (and details) at the first place `marker` ends in the text. */
  async function completeAt(t: { file: string; text: string }, marker: string) {
    const doc = TextDocument.create(`file:///w/${t.file}`, 'json', 1, t.text);
    const at = t.text.indexOf(marker);
    assert.ok(at >= 0, `${marker} in ${t.text}`);
    const items = await complete(doc, ticketSource(t.file, t.text)!, facts, at + marker.length);
    return new Map(items.map((i) => [i.label, i.detail]));
  }

  for (const format of ['json', 'yaml'] as const) {
    it(`completes a test import's names with the exports of the module it names, relative to the test file (${format})`, async () => {
      const t = ticket(format, (x) => {
        x.testPlan.files[0]!.imports = [
          { from: '../../src/handlers/posts', names: ['getP'] },
          { from: '../../src/utils/pagination.js', names: ['MAX_'] },
          { from: 'node:assert', names: ['deepStrictEq'] },
        ];
      });
      const posts = await completeAt(t, 'getP');
      assert.deepEqual([...posts.keys()].sort(), ['getPostHandler', 'listPosts']);
      assert.match(posts.get('listPosts') ?? '', /^\(req: \{ query: Record<string, string \| undefined>; \}\) => /);
      // A Node16-style specifier names the emitted .js of the .ts source.
      const pagination = await completeAt(t, 'MAX_');
      assert.ok(pagination.has('MAX_PER_PAGE') && pagination.has('parsePaginationParams'), [...pagination.keys()].join());
      // A package gives nothing (and no word completion from the server either).
      assert.deepEqual([...(await completeAt(t, 'deepStrictEq')).keys()], []);
    });
  }

  it("completes a default import's name, and a folder's index module", async () => {
    const t = ticket('json', (x) => {
      x.testPlan.files[0]!.imports = [{ from: '../../src', names: [], default: 'dflt' }];
    });
    const names = await completeAt(t, 'dflt');
    // `../../src` is the folder: its index.ts.
    for (const n of ['getPost', 'listPosts', 'summarize']) assert.ok(names.has(n), [...names.keys()].join());
  });

  const findingsOf = async (t: { file: string; text: string }) =>
    (await ticketFindings(facts.checks, t.file, ticketSource(t.file, t.text)!, new AbortController().signal, () => facts.listFiles()))
      .findings;

  /** The diagnostic the server publishes for a finding. */
  function published(t: { text: string }, f: PlacedFinding): Diagnostic {
    const doc = TextDocument.create('file:///x', 'json', 1, t.text);
    return {
      range: { start: doc.positionAt(f.span.offset), end: doc.positionAt(f.span.offset + f.span.length) },
      message: f.message,
      severity: 1,
      data: f.fix ? { fix: f.fix } : undefined,
    };
  }

  for (const format of ['json', 'yaml'] as const) {
    it(`a scope.write path that does not exist is an error, with a fix to the closest file and one to declare the file (${format})`, async () => {
      const t = ticket(format, (x) => {
        x.scope.write = ['src/handlers/psts.ts'];
      });
      const wrong = (await findingsOf(t)).find((f) => f.path === '$.scope.write[0]');
      assert.ok(wrong, 'a finding on scope.write[0]');
      assert.equal(wrong.severity, 'error');
      assert.equal(
        wrong.message,
        'scope.write[0] "src/handlers/psts.ts" does not exist: fix the path (did you mean src/handlers/posts.ts?), or, if the ticket creates it, list what it will export: the ticket adds those declarations to it before the Coder starts',
      );
      assert.equal(t.text.slice(wrong.span.offset, wrong.span.offset + wrong.span.length).replace(/"/g, ''), 'src/handlers/psts.ts');

      const doc = TextDocument.create(`file:///w/${t.file}`, format, 1, t.text);
      const d = published(t, wrong);
      const actions = await codeActions(doc, ticketSource(t.file, t.text)!, facts, d.range, [d]);
      assert.deepEqual(
        actions.map((a) => a.title),
        [
          'Change to "src/handlers/posts.ts"',
          'List what src/handlers/psts.ts will export: the ticket adds those declarations to it before the Coder starts',
        ],
      );

      const fixed = TextDocument.applyEdits(doc, actions[0]!.edit!.changes![doc.uri]!);
      assert.equal((await findingsOf({ file: t.file, text: fixed })).filter((f) => f.path.startsWith('$.scope.write')).length, 0);

      const declared = TextDocument.applyEdits(doc, actions[1]!.edit!.changes![doc.uri]!);
      const value = (format === 'json' ? JSON.parse(declared) : parseYaml(declared)) as {
        ops: { op: string; file: string; exports: string[] }[];
      };
      assert.deepEqual(
        value.ops.map((o) => [o.op, o.file]),
        [['declare', 'src/handlers/psts.ts']],
      );
      assert.match(value.ops[0]!.exports[0]!, /<<fill in>>/);
      assert.equal((await findingsOf({ file: t.file, text: declared })).filter((f) => f.path.startsWith('$.scope.write')).length, 0);
    });
  }

  it('a scope.write file that a test the author wrote imports is no typo while it is not written yet, and its criteria ask for no rendered case', async () => {
    writeFileSync(
      path.join(ws.root, 'test/slugFirst.test.ts'),
      "import { test } from 'node:test';\nimport { slugify } from '../src/utils/slug';\ntest('slugs', () => slugify('A'));\n",
    );
    const t = ticket('yaml', (x) => {
      x.scope.write = ['src/utils/slug.ts', 'src/utils/slugs.ts'];
      x.testPlan = { files: [], authored: ['test/slugFirst.test.ts'] };
    });
    const findings = await findingsOf(t);
    assert.deepEqual(
      findings.filter((f) => f.path.startsWith('$.scope.write')).map((f) => f.path),
      ['$.scope.write[1]'],
    );
    // The authored file is the criteria's test: no hint asks for a rendered case.
    assert.deepEqual(
      findings.filter((f) => f.path.startsWith('$.acceptance')),
      [],
    );
  });

  it('a declare op keeps its place among the ops a ticket has; a path with nothing close offers only the declaration', async () => {
    const t = ticket('json', (x) => {
      x.scope.write = ['src/handlers/posts.ts', 'lib/brandNewThing/entirely.ts'];
      x.ops = [{ op: 'addImport', file: 'src/handlers/posts.ts', from: './x', names: ['y'] }];
    });
    const wrong = (await findingsOf(t)).find((f) => f.path === '$.scope.write[1]');
    assert.ok(wrong);
    assert.equal(
      wrong.message,
      'scope.write[1] "lib/brandNewThing/entirely.ts" does not exist: fix the path, or, if the ticket creates it, list what it will export: the ticket adds those declarations to it before the Coder starts',
    );
    const doc = TextDocument.create(`file:///w/${t.file}`, 'json', 1, t.text);
    const d = published(t, wrong);
    const actions = await codeActions(doc, ticketSource(t.file, t.text)!, facts, d.range, [d]);
    assert.deepEqual(
      actions.map((a) => a.title),
      ['List what lib/brandNewThing/entirely.ts will export: the ticket adds those declarations to it before the Coder starts'],
    );
    const ops = (JSON.parse(TextDocument.applyEdits(doc, actions[0]!.edit!.changes![doc.uri]!)) as { ops: { op: string }[] }).ops;
    assert.deepEqual(
      ops.map((o) => o.op),
      ['addImport', 'declare'],
    );
  });
});
