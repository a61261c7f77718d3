import assert from 'node:assert/strict';
import { EDITOR_TOOL, EditorSession } from '../../../src/core/stages/coder/editorTool';
import { heldOutSecrets, leakedIn, WITHHELD_TEXT, withoutHeldOut } from '../../../src/core/stages/coder/heldOutLeaks';
import { describeFailure } from '../../../src/core/stages/common/evidence';
import { aManifest } from '../../support/aManifest';

/*
 * The held-out cases' text, kept from the Coder: what counts as a case's own text, and the
 * hostile ways it could reach the Coder (a brief that quotes it, a view of its file).
 */

const visible = {
  name: 'splits a bare path',
  criterion: 'AC1',
  expect: [{ kind: 'equal' as const, mode: 'deep' as const, actual: "pathSegments('/posts/42/')", expected: "['posts', '42']" }],
};
const held = {
  name: 'takes the path of another URL',
  criterion: 'AC1',
  expect: [
    {
      kind: 'equal' as const,
      mode: 'deep' as const,
      actual: "pathSegments('http://localhost:3000/tags/ts/?page=2#top')",
      expected: "['tags', 'ts']",
    },
  ],
};

const manifest = aManifest({
  title: 'Path segments',
  description: 'pathSegments(url) gives the segments of a path or a URL.',
  scope: { write: [{ path: 'src/seg.ts', exists: false }] },
  acceptance: [{ id: 'AC1', text: 'a path or URL gives its segments' }],
  testPlan: { files: [{ path: 'test/ticket/T-1.test.ts', suite: 's', cases: [visible] }] },
  heldOut: { generalize: true, files: [{ path: 'test/ticket/T-1.heldout.test.ts', suite: 's', cases: [held] }] },
});

describe('held-out text never reaches the Coder', () => {
  it("takes a case's statements and its literals as its own text, but never what the ticket's visible words hold", () => {
    const secrets = heldOutSecrets(manifest, [{ path: 'src/seg.ts', content: "// tags stay: 'tags'\n" }]);
    assert.ok(secrets.includes("pathSegments('http://localhost:3000/tags/ts/?page=2#top')"));
    assert.ok(secrets.includes('http://localhost:3000/tags/ts/?page=2#top'));
    assert.ok(secrets.includes("['tags', 'ts']"));
    assert.ok(secrets.includes('takes the path of another URL'));
    // Too short to be its own (`ts`), or in the visible material (the pristine file says 'tags').
    assert.ok(!secrets.includes('ts') && !secrets.includes('tags'));
    assert.deepEqual(heldOutSecrets({ ...manifest, heldOut: { generalize: true, files: [] } }), []);
  });

  it('a brief that quotes the held-out case is found, and its text taken out wherever it is', () => {
    const secrets = heldOutSecrets(manifest);
    const brief = "Make pathSegments('http://localhost:3000/tags/ts/?page=2#top') return ['tags', 'ts'].";
    assert.ok(leakedIn(brief, secrets).length > 0);
    const { text, count } = withoutHeldOut(brief, secrets);
    assert.ok(count >= 2);
    assert.ok(!text.includes('localhost:3000') && !text.includes("['tags', 'ts']"), text);
    assert.ok(text.includes(WITHHELD_TEXT));
    // The code under test printed the held-out file into its output: taken out too.
    const printed = `stdout: it('takes the path of another URL', () => { assert.deepEqual(pathSegments('http://localhost:3000/tags/ts/?page=2#top'), ['tags', 'ts']); });`;
    assert.ok(!withoutHeldOut(printed, secrets).text.includes('localhost'));
    assert.deepEqual(leakedIn("Make pathSegments('/posts/42/') return ['posts', '42'].", secrets), []);
  });

  it("a too-narrow failure names the criterion and its text, never the case's input or expected value", () => {
    const text = describeFailure({
      parse: [],
      diagnostics: [],
      lint: [],
      tooNarrow: [{ criterion: 'AC1', text: 'a path or URL gives its segments' }],
    });
    assert.match(text, /too narrow/);
    assert.match(text, /- AC1: a path or URL gives its segments/);
    assert.deepEqual(leakedIn(text, heldOutSecrets(manifest)), []);
  });

  it("refuses the Coder's view of the held-out file as out of scope, and lists only the visible files of its folder", async () => {
    const files = new Map([
      ['test/ticket/T-1.test.ts', 'visible'],
      ['test/ticket/T-1.heldout.test.ts', 'held out'],
    ]);
    const session = new EditorSession(manifest, (p) => Promise.resolve(files.get(p) ?? null), '');
    const view = (path: string) => session.answer({ id: '1', name: EDITOR_TOOL, input: { command: 'view', path } });
    const file = await view('test/ticket/T-1.heldout.test.ts');
    assert.equal(file.isError, true);
    assert.match(file.content, /not in the ticket's scope/);
    assert.ok(!file.content.includes('held out'), 'the file itself is never shown');
    const folder = await view('test/ticket');
    assert.equal(folder.content, 'Files under test/ticket you may view:\ntest/ticket/T-1.test.ts');
    const write = await session.answer({
      id: '2',
      name: EDITOR_TOOL,
      input: { command: 'create', path: 'test/ticket/T-1.heldout.test.ts', file_text: 'x' },
    });
    assert.equal(write.isError, true);
  });
});
