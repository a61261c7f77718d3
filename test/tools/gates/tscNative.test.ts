import { strict as assert } from 'node:assert';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { TscTypeCheck } from '../../../src/node/gates/tscTypeCheck';
import { REPO_ROOT } from '../../support/tempWorkspace';

/**
 * The type-check gate with TypeScript 7's native compiler (the real @typescript/native-preview
 * of this repo's devDependencies) when a project declares it beside its TypeScript 5.
 */
const NATIVE_VERSION = (
  JSON.parse(readFileSync(path.join(REPO_ROOT, 'node_modules', '@typescript', 'native-preview', 'package.json'), 'utf8')) as {
    version: string;
  }
).version;

const installed = (name: string) => path.join(REPO_ROOT, 'node_modules', name);

/**
 * A project whose node_modules holds both compilers (TypeScript 7 under `nativeAs`, as an npm
 * alias would put it); `declared` is what its package.json names.
 */
function project(
  declared: Record<string, string>,
  files: Record<string, string>,
  tsconfig: Record<string, unknown> = {},
  nativeAs = '@typescript/native-preview',
) {
  const root = mkdtempSync(path.join(tmpdir(), 'tr-tsnative-'));
  for (const [name, target] of [
    ['typescript', installed('typescript')],
    [nativeAs, installed('@typescript/native-preview')],
  ] as const) {
    mkdirSync(path.dirname(path.join(root, 'node_modules', name)), { recursive: true });
    symlinkSync(target, path.join(root, 'node_modules', name), 'dir');
  }
  writeFileSync(path.join(root, 'package.json'), JSON.stringify({ name: 'p', private: true, devDependencies: declared }));
  writeFileSync(
    path.join(root, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { strict: true, noEmit: true, types: [], module: 'commonjs', ...tsconfig }, include: ['*.ts'] }),
  );
  for (const [f, text] of Object.entries(files)) writeFileSync(path.join(root, f), text);
  return { root, dispose: () => rmSync(root, { recursive: true, force: true }) };
}

const BOTH = { typescript: '5.9.3', '@typescript/native-preview': NATIVE_VERSION };
const signal = new AbortController().signal;

describe('type-check gate: TypeScript 7 native when the project declares it', function () {
  this.timeout(60_000);

  it('runs tsgo, and a cross-file error only a whole-project check sees still fails the gate', async () => {
    // b.ts calls a() with the argument a.ts no longer takes: the error is in the file nobody edited.
    const p = project(BOTH, {
      'a.ts': 'export function a(): number {\n  return 1;\n}\n',
      'b.ts': "import { a } from './a';\nexport const b = a(2);\n",
    });
    try {
      const gate = new TscTypeCheck({ root: p.root, nodePath: process.execPath });
      assert.deepEqual(gate.tool() && { name: gate.tool()!.name, version: gate.tool()!.version, source: gate.tool()!.source }, {
        name: 'tsgo',
        version: NATIVE_VERSION,
        source: 'workspace',
      });
      const r = await gate.check(signal);
      assert.equal(r.status, 'failed');
      assert.deepEqual(r.tool, { name: 'tsgo', version: NATIVE_VERSION, source: 'workspace' });
      assert.equal(r.detail, `tsgo ${NATIVE_VERSION} (the workspace's own, native)`);
      assert.deepEqual(
        r.diagnostics.map((d) => [d.file, d.line, d.code]),
        [['b.ts', 2, 'TS2554']],
      );
      writeFileSync(path.join(p.root, 'b.ts'), "import { a } from './a';\nexport const b = a();\n");
      const fixed = await gate.check(signal);
      assert.deepEqual([fixed.status, fixed.diagnostics], ['passed', []]);
    } finally {
      p.dispose();
    }
  });

  it("keeps the workspace's tsc when native is only resolvable (hoisted), not declared", async () => {
    const p = project({ typescript: '5.9.3' }, { 'a.ts': 'export const n: number = "one";\n' });
    try {
      const r = await new TscTypeCheck({ root: p.root, nodePath: process.execPath }).check(signal);
      assert.deepEqual([r.status, r.tool?.name, r.tool?.version, r.detail], ['failed', 'tsc', '5.9.3', "tsc 5.9.3 (the workspace's own)"]);
      assert.deepEqual(
        r.diagnostics.map((d) => d.code),
        ['TS2322'],
      );
    } finally {
      p.dispose();
    }
  });

  it('an npm alias of TypeScript 7 counts as declared; a package.json that does not parse declares nothing', () => {
    const alias = project(
      { typescript: '5.9.3', 'ts-native': `npm:@typescript/native-preview@${NATIVE_VERSION}` },
      { 'a.ts': 'export const n = 1;\n' },
      {},
      'ts-native',
    );
    try {
      assert.equal(new TscTypeCheck({ root: alias.root }).tool()?.name, 'tsgo');
      writeFileSync(path.join(alias.root, 'package.json'), '{ not json');
      assert.deepEqual(
        [new TscTypeCheck({ root: alias.root }).tool()?.name, new TscTypeCheck({ root: alias.root }).tool()?.version],
        ['tsc', '5.9.3'],
      );
    } finally {
      alias.dispose();
    }
  });

  it("when native refuses the tsconfig, the workspace's tsc decides, and the result says why", async () => {
    // moduleResolution "node" (node10): TypeScript 5 takes it, TypeScript 7 removed it (TS5108).
    const p = project(BOTH, { 'a.ts': 'export const n: number = "one";\n' }, { moduleResolution: 'node' });
    try {
      const r = await new TscTypeCheck({ root: p.root, nodePath: process.execPath }).check(signal);
      assert.equal(r.status, 'failed', 'the real error is still found');
      assert.deepEqual(r.tool, { name: 'tsc', version: '5.9.3', source: 'workspace' });
      assert.deepEqual(
        r.diagnostics.map((d) => [d.file, d.code]),
        [['a.ts', 'TS2322']],
      );
      assert.match(
        r.detail,
        new RegExp(
          `^tsc 5\\.9\\.3 \\(the workspace's own\\); tsgo ${NATIVE_VERSION.replace(/\./g, '\\.')} \\(native\\) refused the tsconfig: TS5108 `,
        ),
      );
    } finally {
      p.dispose();
    }
  });
});
