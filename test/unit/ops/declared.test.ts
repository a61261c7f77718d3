import assert from 'node:assert/strict';
import type { TicketOp } from '../../../src/core/schema/ticket';
import {
  declarationText,
  declaredForCoder,
  declaredName,
  declaredOverlays,
  unimplementedDeclarations,
  withDeclarations,
} from '../../../src/core/stages/ops/declared';

/** The `declare` op's text, the same for the op's edit, the editor's check and validate. */
describe('ops: declared exports', () => {
  const ops: TicketOp[] = [
    {
      op: 'declare',
      file: 'src/slug.ts',
      exports: ['function slugWords(title: string): string[]', 'export const MAX: number;', 'interface Opts { lower: boolean }'],
    },
    { op: 'addImport', file: 'src/a.ts', from: './b', names: ['c'] },
  ];
  const files = (m: Record<string, string>) => async (p: string) => m[p] ?? null;

  it('writes each declaration exported and ambient, whatever the author wrote before it', () => {
    assert.equal(declarationText('function f(a: number): string'), 'export declare function f(a: number): string;');
    assert.equal(declarationText('export declare const N: number;'), 'export declare const N: number;');
    assert.equal(declarationText('export interface T { a: string }'), 'export declare interface T { a: string }');
    assert.deepEqual(
      [
        'function* gen(): Iterable<number>',
        'async function load(): Promise<void>',
        'type Id = string',
        'class Box {}',
        'enum E { A }',
        'let x: number',
      ].map(declaredName),
      ['gen', 'load', 'Id', 'Box', 'E', 'x'],
    );
  });

  it('adds them at the end of the file once: applying the op again changes nothing', () => {
    const once = withDeclarations('export const a = 1;', ['function f(): void']);
    assert.equal(once, 'export const a = 1;\n\nexport declare function f(): void;\n');
    assert.equal(withDeclarations(once, ['function f(): void']), once);
    assert.equal(
      withDeclarations(null, ['const N: number', 'type T = string']),
      'export declare const N: number;\nexport declare type T = string;\n',
    );
  });

  it('overlays each declared file as the op would leave it, for checks that write nothing', async () => {
    assert.deepEqual(await declaredOverlays(ops, files({})), [
      {
        path: 'src/slug.ts',
        content:
          'export declare function slugWords(title: string): string[];\nexport declare const MAX: number;\nexport declare interface Opts { lower: boolean }\n',
      },
    ]);
  });

  it('names every declared value still only declared, never a declared type, nor a name the ticket did not declare', async () => {
    const laid = withDeclarations('export declare function other(): void;\n', ops[0]!.op === 'declare' ? ops[0]!.exports : []);
    const found = await unimplementedDeclarations(ops, files({ 'src/slug.ts': laid }));
    assert.deepEqual(
      found.map((d) => `${d.file}:${d.line} ${d.code} ${d.category}`),
      ['src/slug.ts:3 declared error', 'src/slug.ts:4 declared error'],
    );
    assert.match(
      found[0]!.message,
      /^slugWords is still only the ticket's declaration \(export declare\): write its implementation with the declared signature$/,
    );
    const written =
      'export const MAX = 3;\nexport function slugWords(title: string): string[] {\n  return [title];\n}\nexport declare interface Opts { lower: boolean }\n';
    assert.deepEqual(await unimplementedDeclarations(ops, files({ 'src/slug.ts': written })), []);
    assert.deepEqual(await unimplementedDeclarations(ops, files({})), []);
    // Declared again without export and exported by a list: still no code behind the name.
    const relisted = 'declare function slugWords(title: string): string[];\nexport const MAX = 3;\nexport { slugWords };\n';
    assert.deepEqual(
      (await unimplementedDeclarations(ops, files({ 'src/slug.ts': relisted }))).map((d) => d.line),
      [1],
    );
  });

  it('tells the Coder each signature to write, and nothing when the ticket declares nothing', () => {
    assert.equal(
      declaredForCoder(ops),
      'The ticket declares these new exports, already in the code as declarations without a body (export declare). Replace each with its implementation, keeping the signature:\n' +
        '- src/slug.ts: export function slugWords(title: string): string[];\n- src/slug.ts: export const MAX: number;\n- src/slug.ts: export interface Opts { lower: boolean }',
    );
    assert.equal(declaredForCoder([ops[1]!]), '');
  });
});
