import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { TscTypeCheck } from '../../../src/node/gates/tscTypeCheck';
import { ProcessJail } from '../../../src/node/sandbox/processJail';
import { buildTscWorker } from '../../support/tempProject';
import { REPO_ROOT } from '../../support/tempWorkspace';

/**
 * The type-check gate's tsc, started while the attempt's tests run (TscTypeCheck.prefetch). The
 * code under test runs beside it and may write the workspace: its result may be taken only when
 * no file changed while it ran. The bad answer first: code with a type error that, while the
 * tests run, writes a version of itself that type-checks, waits for tsc to read it, and puts the
 * broken one back, mtime and all.
 */

const BROKEN = "export function price(): string {\n  return 'three';\n}\n";
const FIXED = 'export function price(): number {\n  return 3;\n}\n';

function project(): { root: string; state: string; dispose: () => void } {
  const root = mkdtempSync(path.join(tmpdir(), 'tr-tsc-ahead-'));
  const state = mkdtempSync(path.join(tmpdir(), 'tr-tsc-ahead-state-'));
  writeFileSync(
    path.join(root, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { strict: true, noEmit: true, types: [] }, include: ['*.ts'] }),
  );
  writeFileSync(path.join(root, 'price.ts'), BROKEN);
  writeFileSync(path.join(root, 'cart.ts'), "import { price } from './price';\nexport const total: number = price() * 2;\n");
  return { root, state, dispose: () => [root, state].forEach((d) => rmSync(d, { recursive: true, force: true })) };
}

/** Resolves once the checker's tsc has ended: it writes its incremental state last. */
async function tscEnded(state: string): Promise<void> {
  const written = () =>
    readdirSync(state).some(
      (d) => d.startsWith('ticket-runner-tsc-') && readdirSync(path.join(state, d)).some((f) => f.endsWith('.tsbuildinfo')),
    );
  const until = Date.now() + 60_000;
  while (!written()) {
    if (Date.now() > until) throw new Error('tsc did not end in 60 s');
    await new Promise((r) => setTimeout(r, 50));
  }
  await new Promise((r) => setTimeout(r, 300));
}

const beside = /, started beside the attempt's tests, no file changed since$/;

describe("gates: the type-check started beside the attempt's tests (real tsc)", function () {
  this.timeout(120_000);
  const signal = new AbortController().signal;

  it('code that fixes its own type error while tsc reads, then puts the broken file back (mtime to the nanosecond), still fails the check', async () => {
    const p = project();
    const tsc = new TscTypeCheck({ root: p.root, fallbackDir: REPO_ROOT, nodePath: process.execPath, stateParent: p.state });
    try {
      const file = path.join(p.root, 'price.ts');
      // The file's times to the nanosecond, kept outside the workspace, as `touch -r` puts them back.
      const times = path.join(p.state, 'times');
      execFileSync('cp', ['-p', file, times]);
      await tsc.prefetch(signal);
      // The code under test, as the tests start: tsc has not read the file yet.
      writeFileSync(file, FIXED);
      await tscEnded(p.state);
      writeFileSync(file, BROKEN);
      execFileSync('touch', ['-r', times, file]);
      const r = await tsc.check(signal);
      assert.equal(r.status, 'failed', r.detail);
      assert.deepEqual(
        r.diagnostics.map((d) => [d.file, d.code]),
        [['cart.ts', 'TS2362']],
      );
      assert.doesNotMatch(r.detail, beside, 'the result of the tsc that read the fixed file is not taken');
    } finally {
      tsc.dispose();
      p.dispose();
    }
  });

  it('with the workspace unchanged, the gate takes the started check: the same errors, and no second tsc', async () => {
    const p = project();
    // The jail every tsc of the checker starts through, counting them.
    const jail = ProcessJail.plain(p.root);
    let started = 0;
    const run = jail.run.bind(jail);
    jail.run = (...args) => (started++, run(...args));
    const tsc = new TscTypeCheck({ root: p.root, fallbackDir: REPO_ROOT, nodePath: process.execPath, stateParent: p.state, jail });
    const fresh = new TscTypeCheck({ root: p.root, fallbackDir: REPO_ROOT, nodePath: process.execPath, stateParent: p.state });
    try {
      await tsc.prefetch(signal, ['price.ts']);
      await tscEnded(p.state);
      const r = await tsc.check(signal, ['price.ts']);
      assert.match(r.detail, beside);
      assert.equal(started, 1, 'one tsc: the gate did not run it again');
      const again = await fresh.check(signal, ['price.ts']);
      assert.deepEqual([r.status, r.diagnostics], [again.status, again.diagnostics], 'the same answer as a check started at the gate');
      assert.doesNotMatch((await tsc.check(signal, ['price.ts'])).detail, beside, 'a started check is taken once');
    } finally {
      tsc.dispose();
      fresh.dispose();
      p.dispose();
    }
  });

  it('the check started beside the tests never holds them back: it is started while the project still loads, and waits for the load on its own', async () => {
    const p = project();
    writeFileSync(path.join(p.root, 'price.ts'), FIXED);
    const tsc = new TscTypeCheck({ root: p.root, fallbackDir: REPO_ROOT, nodePath: process.execPath, stateParent: p.state });
    try {
      tsc.warm(signal, ['price.ts']);
      let loaded = false;
      void (tsc as unknown as { warming: Promise<unknown> }).warming.then(() => (loaded = true));
      await tsc.prefetch(signal, ['price.ts']);
      assert.equal(loaded, false, 'the tests started only once the project had loaded');
      // Written while the tests run: the started check cannot be taken, and the gate finds the error.
      writeFileSync(path.join(p.root, 'price.ts'), BROKEN);
      const r = await tsc.check(signal, ['price.ts']);
      assert.equal(r.status, 'failed', r.detail);
      assert.doesNotMatch(r.detail, beside);
    } finally {
      tsc.dispose();
      p.dispose();
    }
  });

  for (const served of [false, true]) {
    it(`a project loaded ahead on correct code (warm) never forgives the type error written after it, mid-load or after${served ? ', in the type-check worker' : ''}`, async () => {
      const serverScript = served
        ? await buildTscWorker(path.join(mkdtempSync(path.join(tmpdir(), 'tr-tsc-worker-')), 'tscServer.js'))
        : undefined;
      for (const when of ['while it loads', 'once it loaded'] as const) {
        const p = project();
        writeFileSync(path.join(p.root, 'price.ts'), FIXED);
        const tsc = new TscTypeCheck({
          root: p.root,
          fallbackDir: REPO_ROOT,
          nodePath: process.execPath,
          stateParent: p.state,
          serverScript,
        });
        try {
          tsc.warm(signal, ['price.ts']);
          // The warm-up's own end (the worker keeps its state in memory, no file says it ended).
          if (when === 'once it loaded') await (tsc as unknown as { warming: Promise<unknown> }).warming;
          // The Coder's write: the type error the gate must find.
          writeFileSync(path.join(p.root, 'price.ts'), BROKEN);
          const r = await tsc.check(signal, ['price.ts']);
          assert.equal(r.status, 'failed', `${when}: ${r.detail}`);
          assert.ok(
            r.diagnostics.some((d) => d.file === 'price.ts' || d.file === 'cart.ts'),
            `${when}: ${JSON.stringify(r.diagnostics)}`,
          );
        } finally {
          tsc.dispose();
          p.dispose();
        }
      }
    });
  }

  it('a dropped check, one for another scope, or a new file in the workspace sends the gate to check again', async () => {
    const p = project();
    const tsc = new TscTypeCheck({ root: p.root, fallbackDir: REPO_ROOT, nodePath: process.execPath, stateParent: p.state });
    try {
      (await tsc.prefetch(signal, ['price.ts'])).drop();
      assert.doesNotMatch((await tsc.check(signal, ['price.ts'])).detail, beside, 'dropped');

      await tsc.prefetch(signal, ['cart.ts']);
      assert.doesNotMatch((await tsc.check(signal, ['price.ts'])).detail, beside, 'another scope');

      await tsc.prefetch(signal, ['price.ts']);
      writeFileSync(path.join(p.root, 'fix.d.ts'), 'export {};\n');
      rmSync(path.join(p.root, 'fix.d.ts'));
      const r = await tsc.check(signal, ['price.ts']);
      assert.doesNotMatch(r.detail, beside, 'a file created and deleted while it ran');
      assert.equal(r.status, 'failed');
    } finally {
      tsc.dispose();
      p.dispose();
    }
  });
});
