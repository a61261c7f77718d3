import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { TreeSitterParser } from '../../../src/node/parse/treeSitterParser';
import { repoRoot, TempProject } from '../../support/tempProject';

const grammars = join(repoRoot, 'node_modules/tree-sitter-typescript');
const runtime = join(repoRoot, 'node_modules/web-tree-sitter');

describe('TreeSitterParser', () => {
  const parser = new TreeSitterParser({ wasmDir: grammars, runtimeWasmDir: runtime });

  it('finds nothing in a clean file', async () => {
    const clean = 'export interface Post { id: number; tags: string[] }\nexport const first = (p: Post[]): Post | undefined => p[0];\n';
    assert.deepEqual(await parser.parse('src/post.ts', clean), []);
  });

  it('reports a MISSING token with its 1-based position', async () => {
    const problems = await parser.parse('src/a.ts', 'const ok = 1;\nconst x = foo(1, 2;\n');
    assert.deepEqual(problems, [{ file: 'src/a.ts', line: 2, column: 19, kind: 'MISSING', text: ')' }]);
  });

  it('reports an ERROR node with its text', async () => {
    const problems = await parser.parse('src/b.ts', 'let a = 1;\nfunction f( {\n  return 1\n}\n');
    assert.equal(problems.length, 1);
    assert.deepEqual(problems[0], { file: 'src/b.ts', line: 2, column: 1, kind: 'ERROR', text: 'function f( { return 1 }' });
  });

  it('parses JSX only in .tsx and .jsx files', async () => {
    const jsx = 'export const view = <div className="a">{1}</div>;\n';
    assert.deepEqual(await parser.parse('src/view.tsx', jsx), []);
    assert.deepEqual(await parser.parse('src/view.jsx', jsx), []);
    assert.ok((await parser.parse('src/view.ts', jsx)).length > 0);
  });

  it('works bundled by esbuild to CommonJS, with the .wasm files beside the bundle', async function () {
    this.timeout(20_000);
    const dist = new TempProject({});
    try {
      for (const [dir, name] of [
        [runtime, 'web-tree-sitter.wasm'],
        [grammars, 'tree-sitter-typescript.wasm'],
        [grammars, 'tree-sitter-tsx.wasm'],
      ] as const) {
        copyFileSync(join(dir, name), dist.path(name));
      }
      dist.write(
        'entry.ts',
        [
          `import { TreeSitterParser } from ${JSON.stringify(join(repoRoot, 'src/node/parse/treeSitterParser'))};`,
          'void new TreeSitterParser({ wasmDir: __dirname }).parse("a.ts", "const x = (1;").then((p) => console.log(JSON.stringify(p)));',
        ].join('\n'),
      );
      await build({
        entryPoints: [dist.path('entry.ts')],
        outfile: dist.path('extension.js'),
        bundle: true,
        platform: 'node',
        format: 'cjs',
        target: 'node20',
        logLevel: 'error',
      });
      const out = execFileSync(process.execPath, [dist.path('extension.js')], { encoding: 'utf8' });
      assert.deepEqual(JSON.parse(out), [{ file: 'a.ts', line: 1, column: 13, kind: 'MISSING', text: ')' }]);
    } finally {
      dist.remove();
    }
  });
});
