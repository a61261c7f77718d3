import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { ProcessJail } from '../../../src/node/sandbox/processJail';
import { ProcessTestRunner } from '../../../src/node/testRunners/testRunner';
import { copyFixture, treeHash } from '../../support/tempWorkspace';
import { progressLine } from '../../../src/cli/progress';
import { buildReporter, neverAborted, repoRoot } from '../../support/tempProject';

const BIG = 'data/export.bin';
/** 5 MiB: over what the guard keeps in memory. */
const BIG_BYTES = 5 * 1024 * 1024;

/**
 * Code under test that changes the workspace outside anything it was asked to: a new folder
 * three levels deep, a large file grown in place, a folder's mode. All of it must be gone after
 * the test run: the tree (paths, modes, bytes, folders) hashes as it did before.
 */
const messyTest = `import { test } from 'node:test';
import { appendFileSync, chmodSync, mkdirSync, writeFileSync } from 'node:fs';
test('leaves a mess', () => {
  mkdirSync('out-of-scope/deep/nested', { recursive: true });
  writeFileSync('out-of-scope/deep/nested/file.txt', 'planted');
  appendFileSync(${JSON.stringify(BIG)}, Buffer.alloc(1024 * 1024, 7));
  chmodSync('src/store', 0o700);
});
`;

describe('side effects of a test run are rolled back completely', function () {
  this.timeout(60_000);
  let ws: ReturnType<typeof copyFixture>;
  let reporter: string;

  before(async () => {
    reporter = await buildReporter(path.join(mkdtempSync(path.join(tmpdir(), 'tr-reporter-')), 'nodeTestReporter.mjs'));
  });
  after(() => rmSync(path.dirname(reporter), { recursive: true, force: true }));
  beforeEach(() => {
    ws = copyFixture();
    mkdirSync(path.join(ws.root, 'data'));
    writeFileSync(path.join(ws.root, BIG), Buffer.alloc(BIG_BYTES, 1));
    chmodSync(path.join(ws.root, BIG), 0o640);
    writeFileSync(path.join(ws.root, 'test', 'mess.test.ts'), messyTest);
  });
  afterEach(() => ws.dispose());

  for (const sandbox of [true, false]) {
    it(`puts back a created folder tree, a grown 5 MB file and a folder's mode (sandbox ${sandbox ? 'on' : 'off'})`, async () => {
      const jail = await ProcessJail.open({ root: ws.root, protect: [], parentEnv: process.env, ...(sandbox ? { requireSandbox: true } : { withoutSandbox: 'the test of what holds without bubblewrap' }) });
      assert.equal(jail.status.on, sandbox);
      const runner = new ProcessTestRunner({ root: ws.root, nodeTestReporter: reporter, fallbackDir: repoRoot, nodePath: process.execPath, jail });
      const before = treeHash(ws.root, { modes: true });
      try {
        const result = await runner.run({ framework: 'node:test', files: ['test/mess.test.ts'], timeoutMs: 30_000 }, neverAborted());
        assert.equal(result.status, 'passed', result.output);
        assert.deepEqual(result.sideEffects, [
          { path: BIG, change: 'modified', restored: true },
          { path: 'out-of-scope/', change: 'created', restored: true },
          { path: 'src/store/', change: 'modified', restored: true },
        ]);
      } finally {
        runner.dispose();
        await jail.dispose();
      }
      assert.ok(!existsSync(path.join(ws.root, 'out-of-scope')), 'no empty folder is left behind');
      assert.equal(statSync(path.join(ws.root, BIG)).size, BIG_BYTES);
      assert.equal(treeHash(ws.root, { modes: true }), before);
    });
  }

  it('a change it cannot put back is reported as such in every view, and the run cannot pass', async () => {
    // No room for snapshots: the large file is watched but not kept.
    const runner = new ProcessTestRunner({ root: ws.root, nodeTestReporter: reporter, fallbackDir: repoRoot, nodePath: process.execPath, jail: ProcessJail.plain(ws.root), sideEffects: { snapshotBudget: 0 } });
    const result = await runner.run({ framework: 'node:test', files: ['test/mess.test.ts'], timeoutMs: 30_000 }, neverAborted());
    runner.dispose();
    assert.equal(result.passed, 1, 'every test passed');
    assert.equal(result.status, 'failed', 'yet the run cannot pass');
    assert.deepEqual(result.sideEffects?.find((e) => e.path === BIG), { path: BIG, change: 'modified', restored: false });
    assert.match(result.output, /could not be put back, so this run cannot pass: modified data\/export\.bin/);
    assert.equal(statSync(path.join(ws.root, BIG)).size, BIG_BYTES + 1024 * 1024, 'the change is still there');
    // The rest was put back all the same.
    assert.ok(!existsSync(path.join(ws.root, 'out-of-scope')));
    const said = 'changed and could not be restored, so this cannot pass: modified data/export.bin';
    const progress = progressLine({ type: 'tests.ran', attempt: 1, result, runId: 'r', seq: 1, ts: '2026-01-01T00:00:00.000Z' });
    assert.ok(progress?.includes(said), progress ?? '');
  });
});
