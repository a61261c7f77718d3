import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { ProcessJail } from '../../../src/node/sandbox/processJail';
import { ProcessTestRunner } from '../../../src/node/testRunners/testRunner';
import { TrustedTransforms } from '../../../src/node/testRunners/trustedTransforms';
import { copyFixture } from '../../support/tempWorkspace';
import { suiteReporter, neverAborted, repoRoot } from '../../support/tempProject';

/**
 * Code under test that poisons the tools' caches for the run's later test runs. tsx keeps each
 * TypeScript file's compiled code in the temp folder (jest does the same), under a key of the
 * file's text: a test that passed once has an entry there. This test finds the entry of
 * `add.test.ts` and puts in its place code that registers the same case, passing, without the
 * assertion. If the next run of `add.test.ts` shared the temp folder, it would load that code
 * and pass whatever `add` does.
 */
const poisonTest = `import { test } from 'node:test';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir, homedir } from 'node:os';
import { join } from 'node:path';
test('passes, and rewrites what the tools cached', () => {
  for (const dir of readdirSync(tmpdir()).filter((d) => d.startsWith('tsx-')).map((d) => join(tmpdir(), d))) {
    for (const f of readdirSync(dir)) {
      let entry;
      try {
        entry = JSON.parse(readFileSync(join(dir, f), 'utf8'));
      } catch {
        continue; // one this process is still writing
      }
      if (typeof entry.code === 'string' && entry.code.includes('add.test.ts')) {
        try {
          writeFileSync(join(dir, f), JSON.stringify({ ...entry, code: "require('node:test').test('adds two numbers', () => {});" }));
        } catch {
          // read-only here: the attack fails quietly, the test passes
        }
      }
    }
  }
  writeFileSync(join(tmpdir(), 'left-by-an-earlier-command'), 'x');
  writeFileSync(join(homedir(), 'left-by-an-earlier-command'), 'x');
});
`;

const addTest = `import { test } from 'node:test';
import assert from 'node:assert/strict';
import { add } from '../src/add';
test('adds two numbers', () => {
  assert.equal(add(2, 2), 4);
});
`;

/** What a later command finds in its own temp folder and home. */
const leftTest = `import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { tmpdir, homedir } from 'node:os';
import { join } from 'node:path';
test('starts with nothing an earlier command left', () => {
  assert.equal(existsSync(join(tmpdir(), 'left-by-an-earlier-command')), false, 'in its temp folder');
  assert.equal(existsSync(join(homedir(), 'left-by-an-earlier-command')), false, 'in its home');
});
`;

/**
 * A test file that looks for its own compiled code in tsx's cache: put there before this
 * process started (a miss here would be written by this process, and the cache is read-only
 * to it), by the warm-up that runs none of the code.
 */
const compiledAheadTest = `import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
test('finds itself compiled ahead, and cannot write there', () => {
  const dirs = readdirSync(tmpdir()).filter((d) => d.startsWith('tsx-')).map((d) => join(tmpdir(), d));
  assert.equal(dirs.length, 1, 'tsx has a cache in the temp folder');
  const mine = readdirSync(dirs[0]).filter((f) => readFileSync(join(dirs[0], f), 'utf8').includes('compiledAhead.test.ts'));
  assert.equal(mine.length, 1, 'this file was compiled ahead');
  // tsx keys its cache by how it compiles, and under V8's coverage it keeps the sources in the
  // map: an entry compiled the other way is one this process never finds.
  const entry = JSON.parse(readFileSync(join(dirs[0], mine[0]), 'utf8'));
  const withSources = (entry.map?.sourcesContent ?? []).some((s) => typeof s === 'string');
  assert.equal(withSources, Boolean(process.env.NODE_V8_COVERAGE), 'compiled ahead as this process compiles');
  assert.throws(() => writeFileSync(join(dirs[0], mine[0]), '{}'), /EROFS|EACCES|EPERM/);
});
`;

describe('each command of a run gets a temp folder and a home of its own', function () {
  this.timeout(90_000);
  let ws: ReturnType<typeof copyFixture>;

  const reporter = suiteReporter();
  beforeEach(() => {
    ws = copyFixture();
    writeFileSync(path.join(ws.root, 'src', 'add.ts'), 'export const add = (a: number, b: number): number => a + b;\n');
    writeFileSync(path.join(ws.root, 'test', 'add.test.ts'), addTest);
    writeFileSync(path.join(ws.root, 'test', 'poison.test.ts'), poisonTest);
    writeFileSync(path.join(ws.root, 'test', 'left.test.ts'), leftTest);
    writeFileSync(path.join(ws.root, 'test', 'compiledAhead.test.ts'), compiledAheadTest);
  });
  afterEach(() => ws.dispose());

  for (const sandbox of [true, false]) {
    it(`a test run that rewrites the compiled code tsx cached cannot make a later run pass (sandbox ${sandbox ? 'on' : 'off'})`, async () => {
      const jail = await ProcessJail.open({
        root: ws.root,
        protect: [],
        parentEnv: process.env,
        ...(sandbox ? { requireSandbox: true } : { withoutSandbox: 'the test of what holds without bubblewrap' }),
      });
      assert.equal(jail.status.on, sandbox);
      const runner = new ProcessTestRunner({
        root: ws.root,
        nodeTestReporter: reporter(),
        fallbackDir: repoRoot,
        nodePath: process.execPath,
        jail,
      });
      const run = (file: string) => runner.run({ framework: 'node:test', files: [file], timeoutMs: 30_000 }, neverAborted());
      try {
        const first = await run('test/add.test.ts');
        assert.equal(first.status, 'passed', first.output);
        const poison = await run('test/poison.test.ts');
        assert.equal(poison.status, 'passed', poison.output);
        // The code under test is now wrong: the unchanged test must say so.
        writeFileSync(path.join(ws.root, 'src', 'add.ts'), 'export const add = (a: number, b: number): number => a - b;\n');
        const after = await run('test/add.test.ts');
        assert.equal(after.status, 'failed', `a broken add passed: ${after.output}`);
        assert.equal(after.cases.find((c) => c.name === 'adds two numbers')?.status, 'failed', after.output);
        const left = await run('test/left.test.ts');
        assert.equal(left.status, 'passed', left.output);
      } finally {
        runner.dispose();
        await jail.dispose();
      }
    });
  }

  it('a warm-up that cannot load tsx leaves the tests to compile their own, and they pass', async () => {
    const jail = await ProcessJail.open({ root: ws.root, protect: [], parentEnv: process.env, requireSandbox: true });
    const transforms = TrustedTransforms.of(jail, path.join(path.dirname(reporter()), 'tsxWarm.cjs'), process.execPath);
    assert.ok(transforms, 'the sandbox is on and the warm-up is built');
    await transforms.warm(
      path.join(ws.root, 'no-such-tsx.cjs'),
      ws.root,
      [[path.join(ws.root, 'test', 'add.test.ts'), Buffer.from(addTest)]],
      neverAborted(),
    );
    const runner = new ProcessTestRunner({
      root: ws.root,
      nodeTestReporter: reporter(),
      fallbackDir: repoRoot,
      nodePath: process.execPath,
      jail,
    });
    try {
      const r = await runner.run({ framework: 'node:test', files: ['test/add.test.ts'], timeoutMs: 30_000 }, neverAborted());
      assert.equal(r.status, 'passed', r.output);
      assert.deepEqual(readdirSync(transforms.seed!), [], 'nothing was compiled ahead after the failed warm-up');
    } finally {
      runner.dispose();
      await jail.dispose();
    }
  });

  for (const measured of [false, true]) {
    it(`in the sandbox, the test processes find their TypeScript compiled ahead, read-only to them${measured ? ", under V8's coverage too" : ''}`, async () => {
      const jail = await ProcessJail.open({ root: ws.root, protect: [], parentEnv: process.env, requireSandbox: true });
      // The coverage gate's measure, as its runner sets it (coverageRunner.ts).
      const coverageDir = mkdtempSync(path.join(tmpdir(), 'coverage-'));
      const runner = new ProcessTestRunner({
        root: ws.root,
        nodeTestReporter: reporter(),
        fallbackDir: repoRoot,
        nodePath: process.execPath,
        jail,
        ...(measured ? { env: { NODE_V8_COVERAGE: coverageDir }, writable: [coverageDir] } : {}),
      });
      try {
        const r = await runner.run({ framework: 'node:test', files: ['test/compiledAhead.test.ts'], timeoutMs: 30_000 }, neverAborted());
        assert.equal(r.status, 'passed', r.output);
        assert.equal(readdirSync(coverageDir).length > 0, measured, 'the tests ran under V8 coverage exactly when measured');
      } finally {
        runner.dispose();
        await jail.dispose();
        rmSync(coverageDir, { recursive: true, force: true });
      }
    });
  }
});
