import assert from 'node:assert/strict';
import { EDITOR_TOOL, EditorSession, editorToolSpec } from '../../../src/core/stages/coder/editorTool';
import { elisionMarkers, findElision } from '../../../src/core/stages/coder/elision';
import { aManifest } from '../../support/aManifest';

/*
 * The Coder's file editor and the elision check, with no process and no workspace: the files
 * live in a map. The bad answers come first, as a lazy model would give them.
 */

const manifest = aManifest({
  scope: {
    write: [
      { path: 'src/big.ts', exists: true },
      { path: 'src/new.ts', exists: false },
    ],
    read: [{ path: 'src/read.ts', exists: true }],
  },
});

/** A module of `n` exported functions, each of a few lines: real-size, as a library file is. */
function bigModule(n: number): string {
  const out: string[] = ['// Helpers for the blog.', ''];
  for (let i = 0; i < n; i++) {
    out.push(
      `/** Doubles ${i}. */`,
      `export function helper${i}(x: number): number {`,
      `  const y = x * 2 + ${i};`,
      '  return y;',
      '}',
      '',
    );
  }
  return out.join('\n');
}

const files = (): Map<string, string> =>
  new Map([
    ['src/big.ts', bigModule(400)],
    ['src/read.ts', 'export const limit = 3;\n'],
    ['test/t.test.ts', "import { helper1 } from '../src/big';\n"],
    ['src/other.ts', 'export const other = 1;\n'],
  ]);

function session(store = files()): { editor: EditorSession; store: Map<string, string> } {
  return {
    editor: new EditorSession(manifest, async (p) => store.get(p) ?? null, 'Round reading time up\nreadingTime rounds up.\nrounds up'),
    store,
  };
}

let ids = 0;
const call = (input: unknown) => ({ id: `call-${++ids}`, name: EDITOR_TOOL, input });

describe("the Coder's file editor (Claude's text editor tool commands, applied in memory)", () => {
  it('is offered as the text editor tool, with a flat object schema for providers without it', () => {
    const spec = editorToolSpec();
    assert.equal(spec.name, 'str_replace_based_edit_tool');
    assert.equal(spec.kind, 'textEditor');
    assert.equal(spec.inputSchema['type'], 'object');
    assert.deepEqual(Object.keys(spec.inputSchema['properties'] as object).sort(), [
      'command',
      'file_text',
      'insert_line',
      'insert_text',
      'new_str',
      'old_str',
      'path',
      'view_range',
    ]);
  });

  it('str_replace of a unique old_str changes exactly that text; the workspace is untouched until the turn ends', async () => {
    const { editor, store } = session();
    const original = store.get('src/big.ts')!;
    const reply = await editor.answer(
      call({ command: 'str_replace', path: 'src/big.ts', old_str: '  const y = x * 2 + 7;', new_str: '  const y = x * 3 + 7;' }),
    );
    assert.equal(reply.isError, undefined, reply.content);
    assert.match(reply.content, /const y = x \* 3 \+ 7;/);
    const [file] = editor.files();
    assert.equal(file?.path, 'src/big.ts');
    assert.equal(file?.content, original.replace('  const y = x * 2 + 7;', '  const y = x * 3 + 7;'));
    assert.equal(store.get('src/big.ts'), original, 'nothing is written by the editor itself');
  });

  it('an old_str found more than once is a tool error that says how often, and changes nothing', async () => {
    const { editor } = session();
    const reply = await editor.answer(
      call({ command: 'str_replace', path: 'src/big.ts', old_str: '  return y;', new_str: '  return y + 1;' }),
    );
    assert.equal(reply.isError, true);
    assert.match(reply.content, /found 400 times/);
    assert.match(reply.content, /occurs exactly once/);
    assert.equal(editor.files().length, 0);
    assert.deepEqual(
      editor.refusals.map((r) => r.command),
      ['str_replace'],
    );
  });

  it('an old_str not found is a tool error showing the nearest lines', async () => {
    const { editor } = session();
    const reply = await editor.answer(
      call({ command: 'str_replace', path: 'src/big.ts', old_str: 'export function helper12(x: number) {', new_str: 'x' }),
    );
    assert.equal(reply.isError, true);
    assert.match(reply.content, /was not found in src\/big\.ts/);
    assert.match(reply.content, /export function helper12\(x: number\): number \{/, 'the nearest line is shown, numbered');
  });

  it('refuses a path out of scope, a test file, a path out of the workspace, and a create over a file out of scope', async () => {
    const { editor } = session();
    for (const [input, words] of [
      [{ command: 'str_replace', path: 'src/other.ts', old_str: 'other', new_str: 'x' }, /not in the ticket's scope/],
      [{ command: 'str_replace', path: 'test/t.test.ts', old_str: 'helper1', new_str: 'x' }, /read-only/],
      [{ command: 'create', path: '../outside.ts', file_text: 'x' }, /escapes the workspace/],
      [{ command: 'create', path: 'src/other.ts', file_text: 'export const other = 2;\n' }, /not in the ticket's scope/],
      [{ command: 'view', path: 'package.json' }, /not in the ticket's scope/],
      [{ command: 'delete', path: 'src/big.ts' }, /invalid str_replace_based_edit_tool input/],
    ] as const) {
      const reply = await editor.answer(call(input));
      assert.equal(reply.isError, true, JSON.stringify(input));
      assert.match(reply.content, words);
    }
    assert.equal(editor.files().length, 0);
  });

  it('view numbers lines and reads a range; insert and create work on the candidate', async () => {
    const { editor } = session();
    const view = await editor.answer(call({ command: 'view', path: 'src/read.ts' }));
    assert.equal(view.content, '     1\texport const limit = 3;\n     2\t');
    const range = await editor.answer(call({ command: 'view', path: 'src/big.ts', view_range: [3, 4] }));
    assert.equal(range.content, '     3\t/** Doubles 0. */\n     4\texport function helper0(x: number): number {');
    const insert = await editor.answer(
      call({ command: 'insert', path: 'src/big.ts', insert_line: 1, insert_text: "import { limit } from './read';" }),
    );
    assert.equal(insert.isError, undefined, insert.content);
    const created = await editor.answer(call({ command: 'create', path: 'src/new.ts', file_text: 'export const fresh = true;\n' }));
    assert.equal(created.isError, undefined, created.content);
    const byPath = new Map(editor.files().map((f) => [f.path, f.content]));
    assert.equal(byPath.get('src/big.ts')?.split('\n')[1], "import { limit } from './read';");
    assert.equal(byPath.get('src/new.ts'), 'export const fresh = true;\n');
  });

  it('hostile: a create that keeps one of 400 functions between "existing code" markers is refused before anything is written', async () => {
    const { editor } = session();
    const lazy = [
      '// ... existing code ...',
      'export function helper7(x: number): number {',
      '  return Math.ceil(x * 2 + 7);',
      '}',
      '// ... existing code ...',
      '',
    ].join('\n');
    const reply = await editor.answer(call({ command: 'create', path: 'src/big.ts', file_text: lazy }));
    assert.equal(reply.isError, true);
    assert.match(reply.content, /was not written/);
    assert.match(reply.content, /placeholder comments/);
    assert.match(reply.content, /drops 399 exported declaration/);
    assert.equal(editor.files().length, 0);
  });

  it('hostile: a str_replace whose new text stands in for code with a marker is refused', async () => {
    const { editor } = session();
    const reply = await editor.answer(
      call({
        command: 'str_replace',
        path: 'src/big.ts',
        old_str: '/** Doubles 3. */\nexport function helper3(x: number): number {\n  const y = x * 2 + 3;\n  return y;\n}',
        new_str: '// ... rest unchanged',
      }),
    );
    assert.equal(reply.isError, true);
    assert.match(reply.content, /placeholder comment/);
  });
});

describe('elided code', () => {
  it('finds the markers models write, and not comments that explain code', () => {
    for (const marker of [
      '// ... existing code ...',
      '/* rest unchanged */',
      '// [previous code]',
      '// ... other functions remain the same',
      '// Rest of the file unchanged',
      '  // ...',
      '// (omitted for brevity)',
    ]) {
      assert.deepEqual(elisionMarkers(marker), [marker.trim()], marker);
    }
    for (const comment of [
      '// returns the input unchanged',
      '// the rest of the list goes to the next page',
      '// TODO: handle errors',
      '// see https://example.com/...',
      'const a = b; // ...',
    ]) {
      assert.deepEqual(elisionMarkers(comment), [], comment);
    }
  });

  it('a marker the file already had, and an export the ticket names for removal, are not elision', () => {
    const before = 'export function keep() {}\n// ...\nexport function legacyFormat() {}\n';
    assert.equal(findElision(before, 'export function keep() {}\n// ...\n', 'Remove legacyFormat'), undefined);
    assert.deepEqual(findElision(before, 'export function keep() {}\n// ...\n', 'Tidy up'), { markers: [], vanished: ['legacyFormat'] });
  });
});
