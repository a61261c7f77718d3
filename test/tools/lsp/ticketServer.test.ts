import { strict as assert } from 'node:assert';
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { CodeAction, CodeLens, CompletionItem, Hover } from 'vscode-languageserver-protocol';
import type { Ticket } from '../../../src/core/schema/ticket';
import { validateTicket } from '../../../src/core/stages/authoring/validateTicket';
import { wireTicketChecks } from '../../../src/node/wire';
import { cli } from '../../support/cli';
import { applyEdits, positionOf, serveFixture, textAt, type TicketDiagnostic as Diagnostic } from '../../support/lspClient';

const TICKET = '.tickets/LSP-1.ticket.json';

/** BLOG-1 with a mistyped scope.read path and a third criterion no case names. */
function brokenTicket(root: string): string {
  const t = JSON.parse(readFileSync(path.join(root, '.tickets/BLOG-1.ticket.json'), 'utf8')) as Ticket;
  t.id = 'LSP-1';
  t.scope.read = ['src/utils/pagnation.ts', 'src/store/postStore.ts'];
  t.acceptance.push({ id: 'AC3', text: 'Post.title is kept as written' });
  t.testPlan.files[0]!.path = 'test/ticket/LSP-1.test.ts';
  return `${JSON.stringify(t, null, 2)}\n`;
}

/** BLOG-1 as `id`, with nothing wrong: every scope path there, every criterion tested. */
function soundTicket(root: string, id: string): Ticket {
  const t = JSON.parse(brokenTicket(root)) as Ticket;
  t.id = id;
  t.scope.read = ['src/utils/pagination.ts'];
  t.acceptance.pop();
  t.testPlan.files[0]!.path = `test/ticket/${id}.test.ts`;
  return t;
}

/**
 * A sound BLOG-1 that also asks for new code: src/utils/slug.ts, which does not exist yet, and a
 * case that tests its slugify; and one import of a name that a file the ticket does not write lacks.
 */
function newCodeTicket(root: string, id: string): string {
  const t = soundTicket(root, id);
  t.scope.write = [...t.scope.write, 'src/utils/slug.ts'];
  t.acceptance.push({ id: 'AC3', text: 'slugify turns a title into its slug' });
  const file = t.testPlan.files[0]!;
  file.imports = [
    ...file.imports,
    { from: '../../src/utils/slug', names: ['slugify'] },
    { from: '../../src/utils/pagination', names: ['MAX_PAGE_SIZE'] },
  ];
  file.cases.push({
    name: 'slugifies a title',
    criterion: 'AC3',
    async: false,
    arrange: [],
    expect: [{ kind: 'equal', not: false, mode: 'strict', actual: "slugify('Hello World')", expected: "'hello-world'" }],
  });
  return `${JSON.stringify(t, null, 2)}\n`;
}

describe('the ticket language server over stdio (dist/cli.js lsp --stdio)', function () {
  this.timeout(120_000);
  const served = serveFixture();

  it('publishes every finding of validate at its exact range, plus a criterion without a test on the criterion', async () => {
    const text = brokenTicket(served.root);
    const uri = await served.lsp.open(TICKET, text);
    const diagnostics = await served.lsp.diagnostics(uri, 1);

    const missing = diagnostics.find((d) => d.message.includes('pagnation'));
    assert.ok(missing, JSON.stringify(diagnostics));
    assert.equal(missing.severity, 1);
    assert.equal(textAt(text, missing), '"src/utils/pagnation.ts"');
    assert.match(missing.message, /scope\.read\[0\] "src\/utils\/pagnation\.ts" does not exist in the workspace/);

    const untested = diagnostics.find((d) => d.message.includes('AC3'));
    assert.ok(untested, JSON.stringify(diagnostics));
    assert.equal(untested.severity, 2);
    assert.equal(textAt(text, untested), '"AC3"');
    assert.match(untested.message, /no test case names acceptance criterion AC3: the test reviewer gate will fail/);

    // The same checks as `ticket-runner validate`: each of its findings is published, word for word.
    writeFileSync(path.join(served.root, TICKET), text);
    const checks = wireTicketChecks(served.root);
    try {
      const { findings } = await validateTicket(checks, TICKET, text, new AbortController().signal);
      assert.ok(findings.length >= 2);
      for (const f of findings.filter((x) => !x.message.startsWith('no test case names'))) {
        assert.ok(
          diagnostics.some((d) => d.message === f.message),
          `validate's "${f.message}" is published`,
        );
      }
    } finally {
      checks.diagnostics?.dispose?.();
    }
  });

  it("answers the editor's validate request right after didOpen, with the findings and the rendered tests, not cancelled by the check typing scheduled", async () => {
    const text = brokenTicket(served.root).replace('"src/utils/pagnation.ts"', '"src/utils/pagination.ts"');
    const uri = await served.lsp.open('.tickets/LSP-9.ticket.json', text);
    const answer = await served.lsp.connection.sendRequest<{
      findings: { path: string; message: string }[];
      rendered: { path: string }[];
    } | null>('ticketRunner/validate', { uri, types: true });
    assert.ok(answer, 'an answer, not null');
    assert.deepEqual(
      answer.rendered.map((r) => r.path),
      ['test/ticket/LSP-1.test.ts'],
    );
    assert.ok(
      answer.findings.some((f) => f.path === '$.testPlan' && f.message.includes('AC3')),
      JSON.stringify(answer.findings),
    );
    await new Promise((r) => setTimeout(r, 300));
    assert.ok((await served.lsp.diagnostics(uri, 1)).some((d) => d.message.includes('AC3')));
  });

  it('a quick fix changes a mistyped scope path to the closest existing file, and its error goes away', async () => {
    const text = brokenTicket(served.root);
    const uri = await served.lsp.open('.tickets/LSP-2.ticket.json', text.replace('LSP-1', 'LSP-2'));
    const opened = text.replace('LSP-1', 'LSP-2');
    const missing = (await served.lsp.diagnostics(uri, 1)).find((d) => d.message.includes('pagnation'))!;
    const actions = await served.lsp.connection.sendRequest<CodeAction[]>('textDocument/codeAction', {
      textDocument: { uri },
      range: missing.range,
      context: { diagnostics: [missing] },
    });
    const fix = actions.find((a) => a.title === 'Change to "src/utils/pagination.ts"');
    assert.ok(fix?.edit?.changes?.[uri], JSON.stringify(actions));
    const fixed = applyEdits(opened, fix.edit.changes[uri]);
    assert.deepEqual((JSON.parse(fixed) as Ticket).scope.read, ['src/utils/pagination.ts', 'src/store/postStore.ts']);
    await served.lsp.change(uri, fixed, 2);
    const after = await served.lsp.diagnostics(uri, 2);
    assert.equal(after.filter((d) => d.message.includes('pagnation') || d.message.includes('scope.read')).length, 0, JSON.stringify(after));
  });

  it('reports a ref that does not resolve and an expectation that does not type-check, as you type', async () => {
    const t = JSON.parse(brokenTicket(served.root)) as Ticket;
    t.id = 'LSP-3';
    t.scope.read = ['src/utils/pagination.ts'];
    t.acceptance.pop();
    t.refs = [{ symbol: 'Post.publishedAt', file: 'src/types.ts' }];
    const first = t.testPlan.files[0]!.cases[0]!.expect[0];
    assert.ok(first?.kind === 'equal', "BLOG-1's first expectation is an equal");
    first.actual = 'res.statusCode';
    const text = `${JSON.stringify(t, null, 2)}\n`;
    const uri = await served.lsp.open('.tickets/LSP-3.ticket.json', text);
    const diagnostics = await served.lsp.diagnostics(uri, 1);
    const ref = diagnostics.find((d) => d.message.includes('Post.publishedAt does not resolve'));
    assert.ok(ref, JSON.stringify(diagnostics));
    assert.match(textAt(text, ref), /^\{\s*"symbol": "Post\.publishedAt",\s*"file": "src\/types\.ts"\s*\}$/);
    const typeError = diagnostics.find((d) => /statusCode/.test(d.message));
    assert.ok(typeError, JSON.stringify(diagnostics));
    assert.equal(typeError.severity, 2);
    assert.match(textAt(text, typeError), /^\{\s*"name": "rejects perPage above 100"/);
  });

  it('an expectation broken, fixed and broken again keystroke by keystroke is reported each time it is broken, on its case', async () => {
    const t = soundTicket(served.root, 'LSP-11');
    const good = `${JSON.stringify(t, null, 2)}\n`;
    const broken = (n: number) => good.replace('"actual": "res.status"', `"actual": "res.statusCode${n}"`);
    const typeErrors = (ds: Diagnostic[]) => ds.filter((d) => /test\/ticket\/LSP-11\.test\.ts, line \d+:\d+: TS2339/.test(d.message));
    const uri = await served.lsp.open('.tickets/LSP-11.ticket.json', good);
    assert.deepEqual(typeErrors(await served.lsp.diagnostics(uri, 1)), []);
    for (const [version, text] of [
      [2, broken(1)],
      [3, good],
      [4, broken(2)],
      [5, broken(2).replace('"name": "rejects', '"name": "Rejects')],
      [6, good],
      [7, broken(3)],
    ] as const) {
      await served.lsp.change(uri, text, version);
      const errors = typeErrors(await served.lsp.diagnostics(uri, version));
      if (text === good) {
        assert.deepEqual(errors, [], `version ${version} is fixed`);
        continue;
      }
      assert.equal(errors.length, 1, `version ${version}: ${JSON.stringify(errors)}`);
      assert.match(errors[0]!.message, /statusCode\d/);
      assert.match(textAt(text, errors[0]!), /^\{\s*"name": "rejects perPage above 100"/i);
    }
  });

  it('a keystroke that renders the same test still sees the code change on disk since the last check', async () => {
    const t = soundTicket(served.root, 'LSP-8');
    const text = `${JSON.stringify(t, null, 2)}\n`;
    const uri = await served.lsp.open('.tickets/LSP-8.ticket.json', text);
    const renamed = (ds: Diagnostic[]) =>
      ds.some((d) => d.severity === 2 && /listPosts/.test(d.message) && /test\/ticket\/LSP-8\.test\.ts/.test(d.message));
    assert.equal(renamed(await served.lsp.diagnostics(uri, 1)), false, 'the rendered test type-checks against the code as it is');
    const handlers = path.join(served.root, 'src/handlers/posts.ts');
    const before = readFileSync(handlers, 'utf8');
    writeFileSync(handlers, before.replace('export function listPosts(', 'export function listAllPosts('));
    try {
      await served.lsp.change(uri, text.replace('"description": "', '"description": "Typed: '), 2);
      assert.ok(renamed(await served.lsp.diagnostics(uri, 2)), 'the probe is not answered from memory once the code changed');
    } finally {
      writeFileSync(handlers, before);
    }
    await served.lsp.change(uri, text, 3);
    assert.equal(renamed(await served.lsp.diagnostics(uri, 3)), false, 'and the fix on disk clears it again');
  });

  it('reports a ref that does not resolve even while a path error keeps validate from resolving refs', async () => {
    const t = JSON.parse(brokenTicket(served.root)) as Ticket;
    t.refs = [
      { symbol: 'Post.title', file: 'src/types.ts' },
      { symbol: 'Post.publishedAt', file: 'src/types.ts' },
    ];
    const text = `${JSON.stringify(t, null, 2)}\n`;
    const uri = await served.lsp.open('.tickets/LSP-10.ticket.json', text);
    const diagnostics = await served.lsp.diagnostics(uri, 1);
    assert.ok(
      diagnostics.some((d) => d.message.includes('pagnation')),
      'the path error that stops validate',
    );
    const refs = diagnostics.filter((d) => d.message.includes('does not resolve'));
    assert.deepEqual(
      refs.map((d) => d.message),
      ['refs[1]: Post.publishedAt does not resolve in src/types.ts: fix the name or the file'],
    );
    assert.match(textAt(text, refs[0]!), /^\{\s*"symbol": "Post\.publishedAt"/);
  });

  it('warns on a test-plan target that is not a test file, and on a duplicate criterion id while the schema fails elsewhere', async () => {
    const t = JSON.parse(brokenTicket(served.root)) as Ticket;
    t.testPlan.files[0]!.path = 'src/handlers/postsCheck.ts';
    t.acceptance[2]!.id = 'AC1';
    const { title: _title, ...untitled } = t;
    const text = `${JSON.stringify(untitled, null, 2)}\n`;
    const uri = await served.lsp.open('.tickets/LSP-4.ticket.json', text);
    const diagnostics = await served.lsp.diagnostics(uri, 1);
    assert.ok(
      diagnostics.some((d) => d.message === 'missing; expected string' && d.severity === 1),
      JSON.stringify(diagnostics),
    );
    const dup = diagnostics.find((d) => d.message === 'duplicate acceptance id "AC1"');
    assert.ok(dup, JSON.stringify(diagnostics));
    assert.equal(textAt(text, dup), '"AC1"');
    assert.ok(dup.range.start.line > positionOf(text, '"id": "AC2"').line, 'on the second AC1, not the first');
    const target = diagnostics.find((d) => d.message.includes('is not named like a test file'));
    assert.ok(target, JSON.stringify(diagnostics));
    assert.equal(textAt(text, target), '"src/handlers/postsCheck.ts"');
  });

  it('completes workspace files in scope, members in refs, criterion ids and expectation kinds', async () => {
    const text = brokenTicket(served.root).replace('"src/handlers/posts.ts"', '"src/han"');
    const t = JSON.parse(text) as Ticket;
    t.refs = [{ symbol: 'Post.', file: 'src/types.ts' }];
    t.testPlan.files[0]!.cases[1]!.criterion = '';
    const withRefs = `${JSON.stringify(t, null, 2)}\n`;
    const uri = await served.lsp.open('.tickets/LSP-5.ticket.json', withRefs);
    const at = async (needle: string, delta: number) =>
      await served.lsp.connection.sendRequest<CompletionItem[]>('textDocument/completion', {
        textDocument: { uri },
        position: positionOf(withRefs, needle, delta),
      });

    const files = (await at('"src/han"', 8)).map((i) => i.label);
    assert.ok(files.includes('src/handlers/posts.ts'), files.join(', '));
    assert.ok(files.includes('src/utils/pagination.ts'));
    assert.ok(!files.some((f) => f.startsWith('node_modules/')), 'no dependency is offered');

    const members = await at('"Post."', 6);
    const title = members.find((i) => i.label === 'Post.title');
    assert.ok(title, members.map((i) => i.label).join(', '));
    assert.equal(title.detail, 'string');
    assert.ok(!members.some((i) => i.label === 'Post.publishedAt'), 'only what the type has');

    const ids = (await at('"criterion": ""', 14)).map((i) => i.label);
    assert.deepEqual(ids, ['AC1', 'AC2', 'AC3']);

    const kinds = (await at('"kind": "equal"', 9)).map((i) => i.label);
    assert.deepEqual(kinds, ['equal', 'truthy', 'throws', 'rejects', 'property']);
    const snippets = await at('"expect": [', 11);
    const equal = snippets.find((i) => i.label === 'equal expectation');
    assert.ok(equal, snippets.map((i) => i.label).join(', '));
    assert.equal(equal.insertText, '{ "kind": "equal", "actual": "${1}", "expected": "${2}" }');
  });

  it('hovers a test-plan entry with its rendered test, a ref with its type, a scope path with its exports', async () => {
    const t = JSON.parse(brokenTicket(served.root)) as Ticket;
    t.scope.read = ['src/utils/pagination.ts'];
    t.refs = [{ symbol: 'Post.tags', file: 'src/types.ts' }];
    const text = `${JSON.stringify(t, null, 2)}\n`;
    const uri = await served.lsp.open('.tickets/LSP-6.ticket.json', text);
    const hoverAt = async (needle: string, delta: number) =>
      (
        await served.lsp.connection.sendRequest<Hover | null>('textDocument/hover', {
          textDocument: { uri },
          position: positionOf(text, needle, delta),
        })
      )?.contents as { value: string } | undefined;

    const test = await hoverAt('"rejects perPage above 100"', 3);
    assert.ok(test, 'a hover on the case');
    assert.match(test.value, /test\/ticket\/LSP-1\.test\.ts/);
    assert.match(test.value, /rejects perPage above 100[\s\S]*listPosts\(\{ query: \{ perPage: '500' \} \}\)/);

    const ref = await hoverAt('"Post.tags"', 3);
    assert.match(ref?.value ?? '', /Post\.tags: string\[\]/);

    const scope = await hoverAt('"src/utils/pagination.ts"', 3);
    assert.match(scope?.value ?? '', /MAX_PER_PAGE: 100/);
    assert.match(scope?.value ?? '', /parsePaginationParams: \(query/);
  });

  it('a ticket that asks for new code: no warning for the code it asks for, the one wrong import warned on alone, a case hovered as its own code, in plain words', async () => {
    const text = newCodeTicket(served.root, 'LSP-12');
    const uri = await served.lsp.open('.tickets/LSP-12.ticket.json', text);
    const diagnostics = await served.lsp.diagnostics(uri, 1);

    // The module and the function the ticket asks for are the normal case; a name that
    // src/utils/pagination.ts (which the ticket does not write) lacks is a warning, on its import.
    const warnings = diagnostics.filter((d) => d.severity === 2);
    assert.equal(warnings.length, 1, JSON.stringify(warnings));
    assert.match(warnings[0]!.message, /MAX_PAGE_SIZE/);
    assert.match(
      textAt(text, warnings[0]!),
      /^\{\s*"from": "\.\.\/\.\.\/src\/utils\/pagination",\s*"names": \[\s*"MAX_PAGE_SIZE"\s*\]\s*\}$/,
    );

    const test = (
      (
        await served.lsp.connection.sendRequest<Hover | null>('textDocument/hover', {
          textDocument: { uri },
          position: positionOf(text, '"slugifies a title"', 3),
        })
      )?.contents as { value: string } | undefined
    )?.value;
    // Where the case stands, then where it goes, then its code.
    const [standing, ...shown] = (test ?? '').split('\n\n');
    assert.match(standing ?? '', /^\*\*Visible:\*\* /);
    assert.equal(
      shown.join('\n\n'),
      [
        'The test a run renders at `test/ticket/LSP-12.test.ts`:',
        '',
        '```ts',
        "it('[AC3] slugifies a title', () => {",
        "  assert.strictEqual(slugify('Hello World'), 'hello-world');",
        '});',
        '```',
      ].join('\n'),
    );

    // Each finding and each fix says what it does, not what the ticket format calls it.
    const missing = diagnostics.find((d) => d.severity === 1 && d.message.includes('src/utils/slug.ts'));
    assert.ok(missing, JSON.stringify(diagnostics));
    const actions = await served.lsp.connection.sendRequest<CodeAction[]>('textDocument/codeAction', {
      textDocument: { uri },
      range: missing.range,
      context: { diagnostics: [missing] },
    });
    const declare = actions.find((a) => /src\/utils\/slug\.ts/.test(a.title));
    assert.ok(declare, JSON.stringify(actions.map((a) => a.title)));
    assert.match(declare.title, /before the Coder starts/);
    for (const words of [...diagnostics.map((d) => d.message), ...actions.map((a) => a.title), test ?? '']) {
      assert.doesNotMatch(words, /\bdeclare"? ops?\b/i, words);
    }
  });

  it('says on a hover which case is held out from the Coder, and puts a lens above it (BLOG-14)', async () => {
    const text = readFileSync(path.join(served.root, '.tickets/BLOG-14.ticket.json'), 'utf8');
    const uri = await served.lsp.open('.tickets/BLOG-14.ticket.json', text);
    const hoverAt = async (needle: string) =>
      (
        await served.lsp.connection.sendRequest<Hover | null>('textDocument/hover', {
          textDocument: { uri },
          position: positionOf(text, needle, 3),
        })
      )?.contents as { value: string } | undefined;

    const held = await hoverAt('"takes the path of another URL');
    assert.match(
      held?.value ?? '',
      /^\*\*Held out:\*\* the last case of criterion AC2 — the Coder never sees it; it judges an attempt once the visible cases pass\./,
    );
    assert.match(held?.value ?? '', /test\/ticket\/BLOG-14\.heldout\.test\.ts/);
    assert.match((await hoverAt('"takes the path of an https URL'))?.value ?? '', /^\*\*Visible:\*\* the Coder sees it/);

    const lenses = await served.lsp.connection.sendRequest<CodeLens[] | null>('textDocument/codeLens', { textDocument: { uri } });
    assert.deepEqual(
      (lenses ?? []).map((l) => [l.command?.title, l.range.start.line]),
      [['Held out from the Coder', positionOf(text, '"takes the path of another URL').line - 1]],
    );
  });

  it('adds a test-case skeleton for a criterion with none (one that cannot pass), and the refs entry a criterion names', async () => {
    const text = brokenTicket(served.root).replace('"src/utils/pagnation.ts"', '"src/types.ts"');
    const uri = await served.lsp.open('.tickets/LSP-7.ticket.json', text);
    const untested = (await served.lsp.diagnostics(uri, 1)).find((d) => d.message.includes('AC3'))!;
    assert.ok(untested);
    const actions = await served.lsp.connection.sendRequest<CodeAction[]>('textDocument/codeAction', {
      textDocument: { uri },
      range: untested.range,
      context: { diagnostics: [untested] },
    });
    const skeleton = actions.find((a) => a.title === 'Add a test case for AC3');
    assert.ok(skeleton, JSON.stringify(actions.map((a) => a.title)));
    const withCase = JSON.parse(applyEdits(text, skeleton.edit!.changes![uri]!)) as Ticket;
    const added = withCase.testPlan.files[0]!.cases[2]!;
    assert.equal(added.criterion, 'AC3');
    // A skeleton run as it is fails, and validate refuses it until it is written.
    const expectation = added.expect[0];
    assert.ok(expectation?.kind === 'equal', JSON.stringify(added.expect));
    assert.notEqual(expectation.actual, expectation.expected);
    assert.match(added.name, /<<fill in>>/);

    const addRef = actions.find((a) => a.title === 'Add refs entry Post.title (src/types.ts)');
    assert.ok(addRef, JSON.stringify(actions.map((a) => a.title)));
    const withRef = JSON.parse(applyEdits(text, addRef.edit!.changes![uri]!)) as Ticket;
    assert.deepEqual(withRef.refs, [{ symbol: 'Post.title', file: 'src/types.ts' }]);
  });
});

describe('ticket-runner lsp', () => {
  it('speaks over stdio only: without --stdio it says so in one line and exits 3', async () => {
    const r = await cli(['lsp']);
    assert.equal(r.code, 3);
    assert.equal(r.err.trim().split('\n').length, 1);
    assert.match(r.err, /lsp speaks over stdio only: run ticket-runner lsp --stdio/);
  });
});
