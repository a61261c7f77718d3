import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { TscTypeCheck } from '../../../src/node/gates/tscTypeCheck';
import { ProcessJail } from '../../../src/node/sandbox/processJail';
import { REPO_ROOT } from '../../support/tempWorkspace';

/**
 * The baseline's project-wide type-check and the type-check gate share TypeScript's incremental
 * state, so the gate re-checks what changed. It must never miss an error the change causes in a
 * file it did not touch, never write into the workspace, and keep its state where the code
 * under test cannot write.
 */

function project(): { root: string; dispose: () => void } {
  const root = mkdtempSync(path.join(tmpdir(), 'tr-tsc-inc-'));
  // The project asks for incremental builds itself, with its state in the workspace: that file is never written.
  writeFileSync(
    path.join(root, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: { strict: true, noEmit: true, types: [], incremental: true, tsBuildInfoFile: './own.tsbuildinfo' },
      include: ['*.ts'],
    }),
  );
  writeFileSync(path.join(root, 'price.ts'), 'export function price(): number {\n  return 3;\n}\n');
  writeFileSync(path.join(root, 'cart.ts'), "import { price } from './price';\nexport const total: number = price() * 2;\n");
  return { root, dispose: () => rmSync(root, { recursive: true, force: true }) };
}

const stateFiles = (root: string): string[] => readdirSync(root).filter((f) => f.endsWith('.tsbuildinfo'));
/** A folder of the test's own for the checker's state: files running beside this one make theirs in the system's. */
const stateParent = (): string => mkdtempSync(path.join(tmpdir(), 'tr-tsc-state-'));
const stateFolders = (parent: string): string[] =>
  readdirSync(parent)
    .filter((d) => d.startsWith('ticket-runner-tsc-'))
    .map((d) => path.join(parent, d));

describe('gates: the type-check keeps incremental state between the baseline and the gate', function () {
  this.timeout(120_000);
  const signal = new AbortController().signal;

  it('a change that breaks an untouched importer is found on the second check, and a fix clears it', async () => {
    const p = project();
    const tsc = new TscTypeCheck({ root: p.root, fallbackDir: REPO_ROOT, nodePath: process.execPath });
    try {
      assert.equal((await tsc.check(signal)).status, 'passed');
      writeFileSync(path.join(p.root, 'price.ts'), "export function price(): string {\n  return 'three';\n}\n");
      const broken = await tsc.check(signal);
      assert.equal(broken.status, 'failed');
      assert.deepEqual(
        broken.diagnostics.map((d) => [d.file, d.code]),
        [['cart.ts', 'TS2362']],
        'the importer, which did not change, is re-checked',
      );
      writeFileSync(path.join(p.root, 'price.ts'), 'export function price(): number {\n  return 4;\n}\n');
      assert.equal((await tsc.check(signal)).status, 'passed');
      assert.deepEqual(stateFiles(p.root), [], "no state in the workspace, not even where the project's tsconfig asks for it");
    } finally {
      tsc.dispose();
      p.dispose();
    }
  });

  it('the state lives outside the workspace, in one folder per checker, and goes with dispose', async () => {
    const p = project();
    const parent = stateParent();
    const tsc = new TscTypeCheck({ root: p.root, fallbackDir: REPO_ROOT, nodePath: process.execPath, stateParent: parent });
    try {
      await tsc.check(signal);
      const mine = stateFolders(parent);
      assert.equal(mine.length, 1, 'one state folder for this checker');
      const dir = mine[0]!;
      assert.equal(readdirSync(dir).filter((f) => f.endsWith('.tsbuildinfo')).length, 1);
      tsc.dispose();
      assert.equal(existsSync(dir), false);
    } finally {
      tsc.dispose();
      p.dispose();
      rmSync(parent, { recursive: true, force: true });
    }
  });

  it("in the sandbox, a process of the run other than tsc cannot write the checker's state", async () => {
    const p = project();
    const jail = await ProcessJail.open({ root: p.root, protect: [], parentEnv: process.env, requireSandbox: true });
    const parent = stateParent();
    const tsc = new TscTypeCheck({ root: p.root, fallbackDir: REPO_ROOT, nodePath: process.execPath, jail, stateParent: parent });
    try {
      assert.equal((await tsc.check(signal)).status, 'passed', 'tsc itself may write it');
      const [dir] = stateFolders(parent);
      assert.ok(dir, 'the state folder exists');
      const state = path.join(
        dir,
        readdirSync(dir).find((f) => f.endsWith('.tsbuildinfo'))!,
      );
      const forge = await jail.run(process.execPath, ['-e', `require('fs').writeFileSync(${JSON.stringify(state)}, '{}')`], {
        cwd: p.root,
        timeoutMs: 30_000,
        signal,
        tailChars: 4000,
      });
      assert.notEqual(forge.exitCode, 0, `a test's process wrote the state: ${forge.output}`);
      assert.notEqual(readFileSync(state, 'utf8'), '{}');
    } finally {
      tsc.dispose();
      await jail.dispose();
      p.dispose();
      rmSync(parent, { recursive: true, force: true });
    }
  });
});
