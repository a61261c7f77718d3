import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { CodeAction, CompletionItem, Hover } from 'vscode-languageserver-protocol';
import { parse, stringify } from 'yaml';
import type { z } from 'zod';
import type { Ticket } from '../../../src/core/schema/ticket';
import { applyEdits, positionOf, serveFixture, textAt } from '../../support/lspClient';

/** A ticket file as written (its defaults may be left out), as the tests read and change it. */
type TicketFile = z.input<typeof Ticket>;
const parseTicket = (text: string) => parse(text) as TicketFile;

/** BLOG-1 as YAML, with a mistyped scope.read path, a third criterion no case names, and a ref. */
function brokenYaml(root: string, id: string): string {
  const t = JSON.parse(readFileSync(path.join(root, '.tickets/BLOG-1.ticket.json'), 'utf8')) as TicketFile;
  delete t.$schema;
  t.id = id;
  t.scope.read = ['src/utils/pagnation.ts', 'src/store/postStore.ts'];
  t.acceptance.push({ id: 'AC3', text: 'Post.title is kept as written' });
  t.refs = [{ symbol: 'Post.tags', file: 'src/types.ts' }];
  t.testPlan.files![0]!.path = `test/ticket/${id}.test.ts`;
  return stringify(t, { lineWidth: 0 });
}

describe('the ticket language server serves .ticket.yaml tickets over stdio', function () {
  this.timeout(120_000);
  const served = serveFixture();

  it("publishes a broken YAML ticket's findings at their exact YAML ranges, and its quick fixes are valid YAML that fix it", async () => {
    const text = brokenYaml(served.root, 'YL-1');
    const uri = await served.lsp.open('.tickets/YL-1.ticket.yaml', text);
    const diagnostics = await served.lsp.diagnostics(uri, 1);
    const missing = diagnostics.find((d) => d.message.includes('pagnation'));
    assert.ok(missing, JSON.stringify(diagnostics));
    assert.equal(missing.severity, 1);
    assert.equal(textAt(text, missing), 'src/utils/pagnation.ts');
    const untested = diagnostics.find((d) => d.message.includes('AC3'));
    assert.ok(untested, JSON.stringify(diagnostics));
    assert.equal(untested.severity, 2);
    assert.equal(textAt(text, untested), 'AC3');
    assert.equal(untested.range.start.line, positionOf(text, 'id: AC3').line);

    const actions = await served.lsp.connection.sendRequest<CodeAction[]>('textDocument/codeAction', {
      textDocument: { uri },
      range: missing.range,
      context: { diagnostics: [missing] },
    });
    const fix = actions.find((a) => a.title === 'Change to "src/utils/pagination.ts"');
    assert.ok(fix?.edit?.changes?.[uri], JSON.stringify(actions));
    const fixed = applyEdits(text, fix.edit.changes[uri]);
    assert.deepEqual(parseTicket(fixed).scope.read, ['src/utils/pagination.ts', 'src/store/postStore.ts']);
    assert.deepEqual({ ...parseTicket(fixed), scope: undefined }, { ...parseTicket(text), scope: undefined }, 'nothing else changes');

    const caseActions = await served.lsp.connection.sendRequest<CodeAction[]>('textDocument/codeAction', {
      textDocument: { uri },
      range: untested.range,
      context: { diagnostics: [untested] },
    });
    const skeleton = caseActions.find((a) => a.title === 'Add a test case for AC3');
    assert.ok(skeleton?.edit?.changes?.[uri], JSON.stringify(caseActions.map((a) => a.title)));
    const withCase = parseTicket(applyEdits(text, skeleton.edit.changes[uri]));
    assert.equal(withCase.testPlan.files![0]!.cases.length, 3);
    assert.equal(withCase.testPlan.files![0]!.cases[2]!.criterion, 'AC3');
    const addRef = caseActions.find((a) => a.title === 'Add refs entry Post.title (src/types.ts)');
    assert.equal(addRef, undefined, 'src/types.ts is not in scope, so no refs entry is offered from it');

    await served.lsp.change(uri, fixed, 2);
    const after = await served.lsp.diagnostics(uri, 2);
    assert.equal(after.filter((d) => d.message.includes('scope.read')).length, 0, JSON.stringify(after));
  });

  it('adds the refs entry a criterion names, as YAML, to a refs list and to a ticket without one', async () => {
    for (const [id, withRefs] of [
      ['YL-4', true],
      ['YL-5', false],
    ] as const) {
      const t = parseTicket(brokenYaml(served.root, id).replace('src/utils/pagnation.ts', 'src/types.ts'));
      if (!withRefs) delete t.refs;
      const text = stringify(t, { lineWidth: 0 });
      const uri = await served.lsp.open(`.tickets/${id}.ticket.yaml`, text);
      const actions = await served.lsp.connection.sendRequest<CodeAction[]>('textDocument/codeAction', {
        textDocument: { uri },
        range: { start: positionOf(text, 'Post.title is kept', 2), end: positionOf(text, 'Post.title is kept', 2) },
        context: { diagnostics: [] },
      });
      const addRef = actions.find((a) => a.title === 'Add refs entry Post.title (src/types.ts)');
      assert.ok(addRef?.edit?.changes?.[uri], JSON.stringify(actions.map((a) => a.title)));
      const edited = parseTicket(applyEdits(text, addRef.edit.changes[uri]));
      assert.deepEqual(edited.refs, [
        ...(withRefs ? [{ symbol: 'Post.tags', file: 'src/types.ts' }] : []),
        { symbol: 'Post.title', file: 'src/types.ts' },
      ]);
      assert.deepEqual({ ...edited, refs: undefined }, { ...t, refs: undefined }, 'nothing else changes');
    }
  });

  it('completes files in scope, members in refs, criterion ids and expectation kinds in YAML; hovers a ref, a scope path and a case', async () => {
    const t = parseTicket(brokenYaml(served.root, 'YL-2'));
    t.scope.write = ['src/han'];
    t.refs = [{ symbol: 'Post.', file: 'src/types.ts' }];
    const text = stringify(t, { lineWidth: 0 })
      .replace('criterion: AC2', 'criterion: ')
      .replace(/(- kind: )equal(\n\s+actual: res.status)/, '$1eq$2');
    const uri = await served.lsp.open('.tickets/YL-2.ticket.yaml', text);
    const at = async (needle: string, delta: number) =>
      await served.lsp.connection.sendRequest<CompletionItem[]>('textDocument/completion', {
        textDocument: { uri },
        position: positionOf(text, needle, delta),
      });

    const files = await at('- src/han', 9);
    const posts = files.find((i) => i.label === 'src/handlers/posts.ts');
    assert.ok(posts, files.map((i) => i.label).join(', '));
    assert.equal((posts.textEdit as { newText: string }).newText, 'src/handlers/posts.ts', 'a plain YAML scalar, as the file writes it');
    const members = (await at('symbol: Post.', 13)).map((i) => i.label);
    assert.ok(members.includes('Post.title'), members.join(', '));
    assert.ok(!members.includes('Post.publishedAt'));
    assert.deepEqual(
      (await at('criterion: \n', 11)).map((i) => i.label),
      ['AC1', 'AC2', 'AC3'],
    );
    assert.deepEqual(
      (await at('- kind: eq', 10)).map((i) => i.label),
      ['equal', 'truthy', 'throws', 'rejects', 'property'],
    );

    // A whole expectation in an empty list item: block style, its code in block scalars that need
    // no quoting, and once filled in, exactly the expectation the JSON form would hold.
    const bare = /(\n\s*expect:\n\s*)- kind:/.exec(text)!;
    const head = bare[1]!;
    const withItem = text.replace(bare[0], `${head}- \n${head.slice(head.lastIndexOf('\n') + 1)}- kind:`);
    const itemAt = withItem.indexOf('- \n', bare.index) + 2;
    const iUri = await served.lsp.open('.tickets/YL-4.ticket.yaml', withItem);
    const pos = await served.lsp.connection.sendRequest<CompletionItem[]>('textDocument/completion', {
      textDocument: { uri: iUri },
      position: positionOf(withItem, '- \n', 2),
    });
    const snippet = pos.find((i) => i.label === 'equal expectation');
    assert.ok(snippet, pos.map((i) => i.label).join(', '));
    assert.equal(snippet.insertTextMode, 1, 'inserted as is: its lines carry their own indentation');
    const filled = snippet.insertText!.replace('${1}', "listPosts({ query: { perPage: '500' } }).status").replace('${2}', '400');
    const after = parse(withItem.slice(0, itemAt) + filled + withItem.slice(itemAt)) as {
      testPlan: { files: { cases: { expect: unknown[] }[] }[] };
    };
    assert.deepEqual(after.testPlan.files[0]!.cases[0]!.expect[0], {
      kind: 'equal',
      actual: "listPosts({ query: { perPage: '500' } }).status",
      expected: '400',
    });
    assert.doesNotMatch(snippet.insertText!, /"/, 'no quotes to escape');

    const hoverText = brokenYaml(served.root, 'YL-3').replace('pagnation', 'pagination');
    const hUri = await served.lsp.open('.tickets/YL-3.ticket.yaml', hoverText);
    const hoverAt = async (needle: string, delta: number) =>
      (
        await served.lsp.connection.sendRequest<Hover | null>('textDocument/hover', {
          textDocument: { uri: hUri },
          position: positionOf(hoverText, needle, delta),
        })
      )?.contents as { value: string } | undefined;
    assert.match((await hoverAt('symbol: Post.tags', 12))?.value ?? '', /Post\.tags: string\[\]/);
    assert.match((await hoverAt('- src/store/postStore.ts', 4))?.value ?? '', /src\/store\/postStore\.ts` exports/);
    assert.match(
      (await hoverAt('rejects perPage above 100', 3))?.value ?? '',
      /test\/ticket\/YL-3\.test\.ts[\s\S]*listPosts\(\{ query: \{ perPage: '500' \} \}\)/,
    );
  });

  for (const [name, text, line, message] of [
    [
      'an alias bomb',
      `id: YL-H\na: &a ["x","x","x","x","x","x","x","x","x"]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\ng: [*f,*f,*f,*f,*f,*f,*f,*f,*f]\n`,
      2,
      /alias/,
    ],
    ['a duplicate key', 'id: YL-H\ntitle: one\ntitle: two\n', 2, /a key appears twice/],
    ['a tab indent', 'id: YL-H\nscope:\n\twrite: []\n', 2, /tab/],
    ['a second document', 'id: YL-H\n---\nid: other\n', 1, /one YAML document/],
  ] as const) {
    it(`reports ${name} as one diagnostic at its line, and keeps serving`, async () => {
      const rel = `.tickets/YL-H-${name.replace(/\W+/g, '-')}.ticket.yaml`;
      const started = Date.now();
      const uri = await served.lsp.open(rel, text);
      const diagnostics = await served.lsp.diagnostics(uri, 1, 20_000);
      assert.equal(diagnostics.length, 1, JSON.stringify(diagnostics));
      assert.equal(diagnostics[0]!.severity, 1);
      assert.equal(diagnostics[0]!.range.start.line, line, JSON.stringify(diagnostics[0]));
      assert.match(diagnostics[0]!.message, /^not valid YAML \(line \d+, column \d+\): /);
      assert.match(diagnostics[0]!.message, message);
      assert.ok(Date.now() - started < 15_000, 'answered promptly');
      // Every request on it still answers, and the server still checks the next edit.
      await served.lsp.connection.sendRequest('textDocument/completion', { textDocument: { uri }, position: { line, character: 2 } });
      await served.lsp.connection.sendRequest('textDocument/hover', { textDocument: { uri }, position: { line, character: 2 } });
      await served.lsp.connection.sendRequest('textDocument/codeAction', {
        textDocument: { uri },
        range: diagnostics[0]!.range,
        context: { diagnostics },
      });
      await served.lsp.change(uri, 'id: YL-H\n', 2);
      assert.ok((await served.lsp.diagnostics(uri, 2, 20_000)).every((d) => !d.message.startsWith('not valid YAML')));
    });
  }
});
