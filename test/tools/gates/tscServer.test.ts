import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { TypeCheckResult } from '../../../src/core/ports/gates';
import { TscTypeCheck } from '../../../src/node/gates/tscTypeCheck';
import { ProcessJail } from '../../../src/node/sandbox/processJail';
import { buildTscWorker } from '../../support/tempProject';
import { REPO_ROOT } from '../../support/tempWorkspace';

/**
 * The run's type-check worker (`tscServer.ts`): one process of the run that loads the
 * workspace's TypeScript and keeps what it parsed from one check to the next. It must say what
 * `tsc --noEmit` says of every state of the project, never hold on to a file's old text or an
 * old module resolution, and never make a check pass that tsc fails. Each check here is compared
 * with tsc's own on the same files.
 */

const BROKEN = "export function price(): string {\n  return 'three';\n}\n";
const FIXED = 'export function price(): number {\n  return 3;\n}\n';

function project(): { root: string; dispose: () => void } {
  const root = mkdtempSync(path.join(tmpdir(), 'tr-tsc-server-'));
  writeFileSync(
    path.join(root, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { strict: true, noEmit: true, types: [], module: 'commonjs' }, include: ['*.ts', 'lib/**/*.ts'] }),
  );
  writeFileSync(path.join(root, 'price.ts'), FIXED);
  writeFileSync(path.join(root, 'cart.ts'), "import { price } from './price';\nexport const total: number = price() * 2;\n");
  return { root, dispose: () => rmSync(root, { recursive: true, force: true }) };
}

const answer = (r: TypeCheckResult) => [r.status, r.diagnostics];
const KEPT = /kept running for the run(?:: (\d+) of (\d+) files unchanged since its last check|'s later checks: (\d+) files parsed)/;
/** How many files the worker's check found as it had parsed them before, of how many. */
function kept(detail: string): { reused: number; files: number } | undefined {
  const m = KEPT.exec(detail);
  return m ? { reused: Number(m[1] ?? 0), files: Number(m[2] ?? m[3]) } : undefined;
}

describe("gates: the run's type-check worker keeps its parse between checks and says what tsc says", function () {
  this.timeout(180_000);
  const signal = new AbortController().signal;
  let serverScript: string;

  before(async () => {
    serverScript = await buildTscWorker(path.join(mkdtempSync(path.join(tmpdir(), 'tr-tsc-worker-')), 'tscServer.js'));
  });

  it('each state of a project, checked one after another in one worker, gets the same diagnostics as a fresh tsc', async () => {
    const p = project();
    const served = new TscTypeCheck({ root: p.root, fallbackDir: REPO_ROOT, nodePath: process.execPath, serverScript });
    const file = (name: string, text: string) => () => writeFileSync(path.join(p.root, name), text);
    const states: [string, () => void][] = [
      ['clean', () => undefined],
      // The bad answer first: a change that breaks an importer it does not touch.
      ['the importer broken', file('price.ts', BROKEN)],
      ['fixed again', file('price.ts', FIXED)],
      [
        'a syntax error (tsc then reports no type errors)',
        file('cart.ts', "import { price } from './price';\nexport const total: number = price( * 2;\nconst n: number = 'x';\n"),
      ],
      [
        'a type error beside it, once the syntax is right',
        file('cart.ts', "import { price } from './price';\nexport const total: number = price() * 2;\nconst n: number = 'x';\n"),
      ],
      ['a new file with a type error', file('extra.ts', 'export const s: string = 42;\n')],
      ['that file deleted', () => rmSync(path.join(p.root, 'extra.ts'))],
      [
        'a compiler option tsc refuses',
        file(
          'tsconfig.json',
          JSON.stringify({
            compilerOptions: { strict: true, noEmit: true, types: [], module: 'commonjs', target: 'es1' },
            include: ['*.ts'],
          }),
        ),
      ],
      [
        'a stricter tsconfig: the same text, checked under new options',
        file(
          'tsconfig.json',
          JSON.stringify({
            compilerOptions: { strict: true, noEmit: true, types: [], module: 'commonjs', noUnusedLocals: true },
            include: ['*.ts'],
          }),
        ),
      ],
      ['a tsconfig that is not JSON', file('tsconfig.json', '{ "compilerOptions": ')],
    ];
    try {
      let reusedSome = false;
      for (const [name, change] of states) {
        change();
        const fresh = new TscTypeCheck({ root: p.root, fallbackDir: REPO_ROOT, nodePath: process.execPath });
        try {
          const [mine, tsc] = [await served.check(signal), await fresh.check(signal)];
          assert.deepEqual(answer(mine), answer(tsc), `${name}: the worker said ${mine.detail}`);
          assert.ok(KEPT.test(mine.detail), `${name}: checked in the worker (${mine.detail})`);
          reusedSome ||= (kept(mine.detail)?.reused ?? 0) > 0;
        } finally {
          fresh.dispose();
        }
      }
      assert.ok(reusedSome, 'the worker kept some parse from one check to the next');
    } finally {
      served.dispose();
      p.dispose();
    }
  });

  it('a new file that takes over an import (lib.ts before lib/index.ts) is what the next check resolves to', async () => {
    const p = project();
    mkdirSync(path.join(p.root, 'lib'));
    writeFileSync(path.join(p.root, 'lib', 'index.ts'), 'export const rate: number = 2;\n');
    writeFileSync(path.join(p.root, 'use.ts'), "import { rate } from './lib';\nexport const doubled: number = rate * 2;\n");
    const served = new TscTypeCheck({ root: p.root, fallbackDir: REPO_ROOT, nodePath: process.execPath, serverScript });
    try {
      assert.equal((await served.check(signal)).status, 'passed');
      // A file that TypeScript resolves './lib' to before the folder, with another type.
      writeFileSync(path.join(p.root, 'lib.ts'), "export const rate: string = 'two';\n");
      const r = await served.check(signal);
      assert.equal(r.status, 'failed', r.detail);
      assert.deepEqual(
        r.diagnostics.map((d) => [d.file, d.code]),
        [['use.ts', 'TS2362']],
      );
    } finally {
      served.dispose();
      p.dispose();
    }
  });

  it('code that fixes its own type error while the worker reads, then puts the broken file back (mtime to the nanosecond), still fails the gate', async () => {
    const p = project();
    writeFileSync(path.join(p.root, 'price.ts'), BROKEN);
    const jail = ProcessJail.plain(p.root);
    const served = new TscTypeCheck({ root: p.root, fallbackDir: REPO_ROOT, nodePath: process.execPath, serverScript, jail });
    try {
      assert.equal((await served.check(signal)).status, 'failed', 'the baseline');
      const file = path.join(p.root, 'price.ts');
      const times = path.join(p.root, '..', `${path.basename(p.root)}.times`);
      execFileSync('cp', ['-p', file, times]);
      await served.prefetch(signal, ['price.ts']);
      // The code under test, as the tests start: it fixes the file, the worker checks that text and is frozen again.
      writeFileSync(file, FIXED);
      await frozenAgain(served);
      writeFileSync(file, BROKEN);
      execFileSync('touch', ['-r', times, file]);
      rmSync(times);
      const r = await served.check(signal, ['price.ts']);
      assert.equal(r.status, 'failed', r.detail);
      assert.deepEqual(
        r.diagnostics.map((d) => [d.file, d.code]),
        [['cart.ts', 'TS2362']],
      );
      assert.doesNotMatch(r.detail, /started beside/, 'the check that read the fixed file is not taken');
      assert.match(r.detail, KEPT, 'checked again in the same worker');
    } finally {
      served.dispose();
      p.dispose();
    }
  });

  it("a dropped check leaves the worker and its state; a cancelled check throws, and the run's end ends the worker", async () => {
    const p = project();
    const served = new TscTypeCheck({ root: p.root, fallbackDir: REPO_ROOT, nodePath: process.execPath, serverScript });
    try {
      await served.check(signal);
      const pid = workerPid(served);
      (await served.prefetch(signal, ['price.ts'])).drop();
      writeFileSync(path.join(p.root, 'price.ts'), BROKEN);
      const r = await served.check(signal, ['price.ts']);
      assert.equal(r.status, 'failed');
      assert.equal(workerPid(served), pid, 'the same worker');
      assert.ok((kept(r.detail)?.reused ?? 0) > 0, `its parse kept: ${r.detail}`);

      const cancel = new AbortController();
      const checking = served.check(cancel.signal, ['price.ts']);
      cancel.abort();
      await assert.rejects(checking, /cancelled/);
      // The run's end (cancelled or not) disposes of its checker.
      served.dispose();
      assert.ok(await ended(pid), `the worker ${pid} still runs`);
    } finally {
      served.dispose();
      p.dispose();
    }
  });

  it('a worker that cannot check (it ends at once) leaves the judging to tsc, and the result says so', async () => {
    const p = project();
    const dead = path.join(p.root, '..', `${path.basename(p.root)}-dead.js`);
    writeFileSync(dead, 'process.exit(3);\n');
    writeFileSync(path.join(p.root, 'price.ts'), BROKEN);
    const served = new TscTypeCheck({ root: p.root, fallbackDir: REPO_ROOT, nodePath: process.execPath, serverScript: dead });
    try {
      const r = await served.check(signal);
      assert.equal(r.status, 'failed');
      assert.deepEqual(
        r.diagnostics.map((d) => [d.file, d.code]),
        [['cart.ts', 'TS2362']],
      );
      assert.match(
        r.detail,
        /tsc ran on its own: the process kept for the run's checks could not check \(the type-check worker ended \(3\)\)/,
      );
      writeFileSync(path.join(p.root, 'price.ts'), FIXED);
      assert.equal((await served.check(signal)).status, 'passed', 'later checks too, by tsc');
    } finally {
      served.dispose();
      rmSync(dead, { force: true });
      p.dispose();
    }
  });

  it('a worker whose answer counts errors its output does not hold, or does not fit, never passes the check', async () => {
    const p = project();
    const fake = (name: string, reply: string) => {
      const file = path.join(p.root, '..', `${path.basename(p.root)}-${name}.js`);
      // Answers every request at once, with the request's id.
      writeFileSync(
        file,
        `require('readline').createInterface({ input: process.stdin }).on('line', (l) => { const { id } = JSON.parse(l); process.stdout.write(JSON.stringify({ id, ...${reply} }) + '\\n'); });\n`,
      );
      return file;
    };
    const counted = fake('counted', JSON.stringify({ output: '', errors: 2, files: 3, reused: 0 }));
    const misfit = fake('misfit', JSON.stringify({ output: '', errors: 'none' }));
    writeFileSync(path.join(p.root, 'price.ts'), BROKEN);
    const lying = new TscTypeCheck({ root: p.root, fallbackDir: REPO_ROOT, nodePath: process.execPath, serverScript: counted });
    const odd = new TscTypeCheck({ root: p.root, fallbackDir: REPO_ROOT, nodePath: process.execPath, serverScript: misfit });
    try {
      const r = await lying.check(signal);
      assert.equal(r.status, 'error', r.detail);
      assert.match(r.detail, /counted 2 errors, but its output holds none/);
      // An answer that does not fit: tsc judges, and finds the importer's error.
      const t = await odd.check(signal);
      assert.deepEqual([t.status, t.diagnostics.map((d) => [d.file, d.code])], ['failed', [['cart.ts', 'TS2362']]], t.detail);
      assert.match(
        t.detail,
        /tsc ran on its own: the process kept for the run's checks could not check \(the type-check worker answered something that is not a type-check answer/,
      );
    } finally {
      lying.dispose();
      odd.dispose();
      [counted, misfit].forEach((f) => rmSync(f, { force: true }));
      p.dispose();
    }
  });

  it('a check under way when the run ends starts no tsc in its place', async () => {
    const p = project();
    const silent = path.join(p.root, '..', `${path.basename(p.root)}-silent.js`);
    writeFileSync(silent, 'process.stdin.resume();\n');
    const jail = ProcessJail.plain(p.root);
    let started = 0;
    const run = jail.run.bind(jail);
    jail.run = (...args) => (started++, run(...args));
    const served = new TscTypeCheck({ root: p.root, fallbackDir: REPO_ROOT, nodePath: process.execPath, serverScript: silent, jail });
    try {
      const checking = served.check(signal);
      await new Promise((r) => setTimeout(r, 500));
      served.dispose();
      await assert.rejects(checking, /cancelled: the run is over/);
      assert.equal(started, 0, 'no tsc started after the run ended');
    } finally {
      served.dispose();
      rmSync(silent, { force: true });
      p.dispose();
    }
  });

  it("a secret of the run's environment that a type error quotes is redacted, as in tsc's own output", async () => {
    const p = project();
    const secret = 'sk-canary-tsc-worker-0123456789';
    writeFileSync(path.join(p.root, 'key.ts'), `export const key: 1 = '${secret}';\n`);
    const env = { ...process.env, CANARY_API_KEY: secret };
    const jail = await ProcessJail.open({
      root: p.root,
      protect: [],
      parentEnv: env,
      withoutSandbox: 'the redaction is what this test checks',
    });
    const served = new TscTypeCheck({ root: p.root, fallbackDir: REPO_ROOT, nodePath: process.execPath, serverScript, jail });
    try {
      const r = await served.check(signal);
      assert.match(r.detail, KEPT);
      assert.deepEqual(
        r.diagnostics.map((d) => [d.file, d.code]),
        [['key.ts', 'TS2322']],
      );
      assert.ok(!JSON.stringify(r).includes(secret), `the secret is in the result: ${JSON.stringify(r.diagnostics)}`);
    } finally {
      served.dispose();
      await jail.dispose();
      p.dispose();
    }
  });

  it('in the OS sandbox, the worker finds the importer it broke, and is frozen between checks', async () => {
    const p = project();
    const jail = await ProcessJail.open({ root: p.root, protect: [], parentEnv: process.env, requireSandbox: true });
    const served = new TscTypeCheck({ root: p.root, fallbackDir: REPO_ROOT, nodePath: process.execPath, serverScript, jail });
    try {
      assert.equal((await served.check(signal)).status, 'passed');
      const pid = workerPid(served);
      assert.equal(readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '')[0], 'T', 'frozen between checks');
      writeFileSync(path.join(p.root, 'price.ts'), BROKEN);
      const r = await served.check(signal);
      assert.deepEqual([r.status, r.diagnostics.map((d) => [d.file, d.code])], ['failed', [['cart.ts', 'TS2362']]], r.detail);
      assert.match(r.detail, KEPT);
    } finally {
      served.dispose();
      await jail.dispose();
      p.dispose();
    }
  });

  it('on the fixture projects, the baseline in the worker is what tsc says', async () => {
    for (const fixture of ['blog-api', 'shop-esm']) {
      const root = path.join(REPO_ROOT, 'test', 'fixtures', fixture);
      const served = new TscTypeCheck({ root, fallbackDir: REPO_ROOT, nodePath: process.execPath, serverScript });
      const fresh = new TscTypeCheck({ root, fallbackDir: REPO_ROOT, nodePath: process.execPath });
      try {
        const [mine, tsc] = [await served.check(signal), await fresh.check(signal)];
        assert.match(mine.detail, KEPT);
        assert.deepEqual(answer(mine), answer(tsc), fixture);
        assert.ok((kept(mine.detail)?.files ?? 0) > 50, `${fixture}: the program holds the packages' types too`);
      } finally {
        served.dispose();
        fresh.dispose();
      }
    }
  });
});

/** The worker's process id (a private field: what the test watches, not what the checker offers). */
function workerPid(tsc: TscTypeCheck): number {
  const pid = (tsc as unknown as { server?: { process?: { child: { pid?: number } } } }).server?.process?.child.pid;
  assert.ok(pid, 'a worker runs');
  return pid;
}

/** Waits until the worker has answered the check started ahead: it is frozen (stopped) between checks. */
async function frozenAgain(tsc: TscTypeCheck): Promise<void> {
  const until = Date.now() + 60_000;
  // Started and running first, then stopped once it answered.
  let ran = false;
  for (;;) {
    const pid = (tsc as unknown as { server?: { process?: { child: { pid?: number } } } }).server?.process?.child.pid;
    const state = pid ? readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '')[0] : undefined;
    if (state && state !== 'T') ran = true;
    if (ran && state === 'T') return;
    if (Date.now() > until) throw new Error('the worker did not answer in 60 s');
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function ended(pid: number): Promise<boolean> {
  for (let i = 0; i < 200; i++) {
    try {
      process.kill(pid, 0);
    } catch {
      return true;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}
