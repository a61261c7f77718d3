import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { CancelledError } from '../../../src/core/errors';
import { ProcessJail } from '../../../src/node/sandbox/processJail';
import { MARK_VAR } from '../../../src/node/sandbox/processSweep';
import { ProcessTestRunner } from '../../../src/node/testRunners/testRunner';
import { copyFixture } from '../../support/tempWorkspace';
import { suiteReporter, eventually, isRunning, neverAborted, repoRoot } from '../../support/tempProject';

/**
 * Code under test that leaves a process behind on purpose: `spawn(..., { detached: true })`
 * puts it in a session of its own, out of reach of the process-group kill. With the OS sandbox
 * off (no bubblewrap, whose pid namespace would end it), only the sweep of the run's mark can.
 */
const detachingTest = (pidFile: string, hang: boolean) => `import { test } from 'node:test';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
test('leaves a sleeper behind', async () => {
  const child = spawn('sleep', ['300'], { detached: true, stdio: 'ignore' });
  child.unref();
  writeFileSync(${JSON.stringify(pidFile)}, String(child.pid));
  ${hang ? 'await new Promise(() => setInterval(() => {}, 1000));' : ''}
});
`;

describe('the sweep of detached descendants, without the OS sandbox', function () {
  this.timeout(60_000);
  let ws: ReturnType<typeof copyFixture>;
  let jail: ProcessJail;
  let outside: string;
  const bystanders: ChildProcess[] = [];

  const reporter = suiteReporter();
  beforeEach(async () => {
    ws = copyFixture();
    // The pid file goes outside the workspace: what a test leaves in the workspace is put back (removed).
    outside = path.dirname(ws.root);
    jail = await ProcessJail.open({
      root: ws.root,
      protect: [],
      parentEnv: process.env,
      withoutSandbox: 'the test of what holds without bubblewrap',
    });
  });
  afterEach(async () => {
    for (const b of bystanders.splice(0)) b.kill('SIGKILL');
    await jail.dispose();
    ws.dispose();
  });

  /** A process that is no business of the run: unmarked, or marked by another run. */
  function bystander(mark?: string): number {
    const child = spawn('sleep', ['300'], {
      detached: true,
      stdio: 'ignore',
      env: { ...process.env, ...(mark ? { [MARK_VAR]: mark } : {}) },
    });
    child.unref();
    bystanders.push(child);
    return child.pid!;
  }

  it('kills a detached grandchild once the test run ends, and nothing else', async () => {
    const pidFile = path.join(outside, 'sleeper.pid');
    writeFileSync(path.join(ws.root, 'test', 'detach.test.ts'), detachingTest(pidFile, false));
    const unrelated = bystander();
    const otherRun = bystander('0123456789abcdef0123456789abcdef.1');
    const runner = new ProcessTestRunner({
      root: ws.root,
      nodeTestReporter: reporter(),
      fallbackDir: repoRoot,
      nodePath: process.execPath,
      jail,
    });
    const result = await runner.run({ framework: 'node:test', files: ['test/detach.test.ts'], timeoutMs: 30_000 }, neverAborted());
    assert.equal(result.status, 'passed', result.output);
    const sleeper = Number(readFileSync(pidFile, 'utf8'));
    assert.ok(sleeper > 0);
    assert.ok(await eventually(() => !isRunning(sleeper)), `the detached sleeper ${sleeper} still runs after the test run`);
    assert.ok(isRunning(unrelated), 'an unmarked process is left alone');
    assert.ok(isRunning(otherRun), "another run's process is left alone");
    assert.ok(isRunning(process.pid));
  });

  it('kills it when the run is cancelled mid-test', async () => {
    const pidFile = path.join(outside, 'hanging-sleeper.pid');
    writeFileSync(path.join(ws.root, 'test', 'detach.test.ts'), detachingTest(pidFile, true));
    const runner = new ProcessTestRunner({
      root: ws.root,
      nodeTestReporter: reporter(),
      fallbackDir: repoRoot,
      nodePath: process.execPath,
      jail,
    });
    const controller = new AbortController();
    const run = runner.run({ framework: 'node:test', files: ['test/detach.test.ts'], timeoutMs: 30_000 }, controller.signal);
    assert.ok(await eventually(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8') !== '', 20_000), 'the test never started');
    controller.abort();
    await assert.rejects(run, CancelledError);
    const sleeper = Number(readFileSync(pidFile, 'utf8'));
    assert.ok(await eventually(() => !isRunning(sleeper)), `the detached sleeper ${sleeper} still runs after the cancel`);
  });
});
