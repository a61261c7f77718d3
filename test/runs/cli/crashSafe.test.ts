import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { EXIT } from '../../../src/cli/exitCodes';
import { runDistCli, startDistCli, until } from '../../support/cliProcess';
import { alive, HANGING_TESTS, pidsWith } from '../../support/processes';
import { copyFixture, copyWorkspace, treeDifferences, treeHash } from '../../support/tempWorkspace';

/** Ended, and only waiting for its new parent to reap it. */
const zombie = (pid: number): boolean => {
  try {
    return /\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true;
  }
};

interface Logged {
  type: string;
  attempt?: number;
  outcome?: string;
  reason?: { kind: string };
}

const eventsOf = (ws: string): Logged[] => {
  const runs = path.join(ws, '.ticket-runner', 'runs');
  if (!existsSync(runs)) return [];
  const [id] = readdirSync(runs);
  if (!id) return [];
  const file = path.join(runs, id, 'events.jsonl');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.endsWith('}'))
    .map((l) => JSON.parse(l) as Logged);
};

/** Tests whose process detaches a grandchild from its group (setsid) and then never ends. */
const DETACHING_TESTS = `const { spawn } = require('node:child_process');
const token = process.argv[2];
spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)', '299.' + token], { detached: true, stdio: 'ignore' }).unref();
require('node:fs').writeFileSync('started', token);
setInterval(() => {}, 1000);
`;

describe('crash-safe runs (dist/cli.js)', function () {
  this.timeout(180_000);
  let ws: ReturnType<typeof copyFixture>;
  beforeEach(() => {
    ws = copyFixture();
  });
  afterEach(() => ws.dispose());

  for (const [signal, code] of [
    ['SIGTERM', 143],
    ['SIGINT', 130],
  ] as const) {
    it(`${signal} stops the run cleanly: its test processes killed, run.finished cancelled, exit ${code}, the lock released`, async () => {
      writeFileSync(path.join(ws.root, 'hang.js'), HANGING_TESTS);
      const token = String(Date.now() % 100000);
      const run = startDistCli([
        'run',
        '.tickets/BLOG-1.ticket.json',
        '--model',
        'scripted',
        '--workspace',
        ws.root,
        '--test-command',
        `node hang.js ${token}`,
      ]);
      await until('the tests to start', () => pidsWith(`hang.js ${token}`).length > 0 && pidsWith(`299.${token}`).length > 0);
      const pids = [...pidsWith(`hang.js ${token}`), ...pidsWith(`299.${token}`)];
      assert.ok(pids.length >= 2 && pids.every(alive), `the test process and its grandchild run: ${pids.join(', ')}`);
      run.child.kill(signal);
      const r = await run.done;
      assert.equal(r.code, code, r.stderr);
      const last = eventsOf(ws.root).at(-1)!;
      assert.deepEqual([last.type, last.outcome, last.reason?.kind], ['run.finished', 'cancelled', 'cancelled']);
      await until('the test processes to be gone', () => !pids.some(alive), 5_000);
      assert.equal(existsSync(path.join(ws.root, '.ticket-runner', 'lock')), false);
    });
  }

  /** The CLI on BLOG-1 with hang.js as its test command, on a PATH with no bubblewrap (node by its path). */
  const startWithoutSandbox = (token: string) =>
    startDistCli(
      [
        'run',
        '.tickets/BLOG-1.ticket.json',
        '--model',
        'scripted',
        '--workspace',
        ws.root,
        '--test-command',
        `${process.execPath} hang.js ${token}`,
      ],
      { env: { ...process.env, PATH: path.join(ws.root, 'no-such-bin') } },
    );

  it('kill -9 of the CLI while a test runs in the sandbox leaves no process of the run working five seconds later', async () => {
    writeFileSync(path.join(ws.root, 'hang.js'), HANGING_TESTS);
    const token = String(Date.now() % 100000);
    const run = startDistCli([
      'run',
      '.tickets/BLOG-1.ticket.json',
      '--model',
      'scripted',
      '--workspace',
      ws.root,
      '--require-sandbox',
      '--test-command',
      `node hang.js ${token}`,
    ]);
    await until('the tests to start', () => pidsWith(`hang.js ${token}`).length > 0 && pidsWith(`299.${token}`).length > 0);
    const pids = [...pidsWith(`hang.js ${token}`), ...pidsWith(`299.${token}`)];
    assert.ok(pids.length >= 2 && pids.every(alive), `the test process and its grandchild run: ${pids.join(', ')}`);
    run.child.kill('SIGKILL');
    await run.done;
    await new Promise((r) => setTimeout(r, 5_000));
    const left = [...pidsWith(`hang.js ${token}`), ...pidsWith(`299.${token}`)].filter((p) => alive(p) && !zombie(p));
    assert.deepEqual(left, [], 'no process of the run outlives it');
  });

  it('SIGTERM without the OS sandbox also kills what the tests detached from their process group', async () => {
    // setsid's way out of the group kill: only the sweep of the run's mark reaches it.
    writeFileSync(path.join(ws.root, 'hang.js'), DETACHING_TESTS);
    const token = String(Date.now() % 100000);
    const run = startWithoutSandbox(token);
    await until('the tests to start', () => pidsWith(`hang.js ${token}`).length > 0 && pidsWith(`299.${token}`).length > 0);
    const detached = pidsWith(`299.${token}`);
    assert.ok(detached.every(alive));
    run.child.kill('SIGTERM');
    const r = await run.done;
    assert.equal(r.code, 143, r.stderr);
    assert.match(r.stderr, /sandbox: off/);
    await until('the detached process to be gone', () => detached.every((p) => !alive(p) || zombie(p)), 5_000);
  });

  it('kill -9 of the CLI while a test runs without the OS sandbox leaves no process of the run working five seconds later, a detached one included', async () => {
    // Nothing watches the run's processes once the CLI is gone: not bwrap's --die-with-parent, not the CLI's own sweep.
    writeFileSync(path.join(ws.root, 'hang.js'), DETACHING_TESTS);
    const token = String(Date.now() % 100000);
    const run = startWithoutSandbox(token);
    await until('the tests to start', () => pidsWith(`hang.js ${token}`).length > 0 && pidsWith(`299.${token}`).length > 0);
    const pids = [...pidsWith(`hang.js ${token}`), ...pidsWith(`299.${token}`)];
    assert.ok(pids.length >= 2 && pids.every(alive), `the test process and its detached child run: ${pids.join(', ')}`);
    run.child.kill('SIGKILL');
    await run.done;
    await new Promise((r) => setTimeout(r, 5_000));
    const left = [...pidsWith(`hang.js ${token}`), ...pidsWith(`299.${token}`)].filter((p) => alive(p) && !zombie(p));
    assert.deepEqual(left, [], 'no process of the run outlives it');
  });

  /**
   * One BLOG-1 run that went to its end, uninterrupted: the reference a resumed run must reach,
   * and the first of the sample's tickets run one after another in one folder. Each test takes
   * it on from a copy of its workspace.
   */
  describe('after a BLOG-1 run that went to its end', () => {
    interface Ran {
      runId: string;
      state: { status: string; attempts: unknown[]; gates: { gate: string; status: string }[] };
    }
    let reference: Ran & { tree: string; stderr: string; ws: ReturnType<typeof copyFixture> };
    before(() => {
      const own = copyFixture();
      const r = runDistCli(['run', '.tickets/BLOG-1.ticket.json', '--model', 'scripted', '--workspace', own.root, '--json'], {
        timeoutMs: 300_000,
      });
      assert.equal(r.code, EXIT.passed, r.stderr);
      reference = { ...(JSON.parse(r.stdout) as Ran), tree: treeHash(own.root, { modes: true }), stderr: r.stderr, ws: own };
    });
    after(() => reference.ws.dispose());

    it('after kill -9, list and show say interrupted; resume reaches the end state of an uninterrupted run, and rollback the state before it, leaving no cut-short write behind', async () => {
      const run = startDistCli(['run', '.tickets/BLOG-1.ticket.json', '--model', 'scripted', '--workspace', ws.root]);
      // Killed inside the second attempt, after the first one ended: what ended must stand, the rest is redone.
      await until('the second attempt', () => eventsOf(ws.root).some((e) => e.type === 'coder.attempted' && e.attempt === 2));
      run.child.kill('SIGKILL');
      await run.done;
      // What a kill inside attempt 2's write of posts.ts leaves (a few milliseconds after the event
      // this waits for, so now and then the kill above lands there): the write's temp file.
      const leftover = (file: string) =>
        writeFileSync(path.join(ws.root, path.dirname(file), `.${path.basename(file)}.${'5a'.repeat(12)}.ticket-runner.tmp`), 'cut short');
      leftover('src/handlers/posts.ts');
      const runId = (JSON.parse(runDistCli(['list', '--json', '--workspace', ws.root]).stdout) as { runId: string; status: string }[])[0]!;
      assert.equal(runId.status, 'interrupted');
      const shown = runDistCli(['show', runId.runId, '--workspace', ws.root]);
      assert.match(
        shown.stdout,
        new RegExp(
          `Outcome: interrupted: its process \\(pid ${run.child.pid}\\) is gone; continue it with: ticket-runner resume ${runId.runId}`,
        ),
      );

      // No --model: a run started with the scripted model goes on with it, asking for no key.
      const resumed = runDistCli(['resume', runId.runId, '--workspace', ws.root, '--json'], {
        env: { ...process.env, ANTHROPIC_API_KEY: '' },
      });
      assert.equal(resumed.code, 0, resumed.stderr);
      assert.match(resumed.stderr, /warning: took over a stale lock/);
      const state = (JSON.parse(resumed.stdout) as { state: Ran['state'] }).state;
      const { state: refState } = reference;
      assert.equal(state.status, refState.status);
      assert.equal(state.attempts.length, refState.attempts.length);
      assert.deepEqual(
        state.gates.map((g) => [g.gate, g.status]),
        refState.gates.map((g) => [g.gate, g.status]),
      );
      const tree = treeHash(ws.root, { modes: true });
      if (tree !== reference.tree)
        assert.fail(`not the same files, contents and modes as the uninterrupted run:\n${treeDifferences(ws.root, reference.ws.root)}`);

      const again = runDistCli(['resume', runId.runId, '--model', 'scripted', '--workspace', ws.root]);
      assert.equal(again.code, 3);
      assert.match(again.stderr, /ended \(passed\); only an interrupted or cancelled run can be resumed/);

      // A rollback clears such leftovers too, before it removes the folders the run made.
      leftover('test/ticket/BLOG-1.test.ts');
      const rolledBack = runDistCli(['rollback', runId.runId, '--workspace', ws.root]);
      assert.equal(rolledBack.code, EXIT.passed, rolledBack.stderr);
      const pristine = copyFixture();
      try {
        if (treeHash(ws.root, { modes: true }) !== treeHash(pristine.root, { modes: true }))
          assert.fail(`rolled back, not the fixture as it was:\n${treeDifferences(ws.root, pristine.root)}`);
      } finally {
        pristine.dispose();
      }
    });

    /**
     * The sample's tickets one after another in one folder (dist/cli.js, started outside it): BLOG-1
     * passes and its change stays; BLOG-4 is told so before it runs, and when its recorded answers
     * then fall short, the run ends saying that in plain words, with BLOG-1's change as the likely
     * cause and the rollbacks to do. Done in that order, BLOG-4 goes as recorded.
     */
    describe('sample tickets one after another', function () {
      // Four whole runs in a row, each with its own copy of the workspace for the tests: more than one run's time.
      this.timeout(420_000);
      let ws: ReturnType<typeof copyWorkspace>;
      before(() => {
        ws = copyWorkspace(reference.ws.root);
      });
      after(() => ws.dispose());
      const cli = (...args: string[]) => runDistCli([...args, '--workspace', ws.root], { timeoutMs: 300_000 });
      const run = (ticket: string, code: number) => {
        const r = cli('run', `.tickets/${ticket}.ticket.json`, '--model', 'scripted', '--json');
        assert.equal(r.code, code, r.stderr);
        return { runId: (JSON.parse(r.stdout) as { runId: string }).runId, stderr: r.stderr };
      };

      it("says before BLOG-4 that BLOG-1's change is still there, ends BLOG-4 with what happened and its likely cause, and the rollbacks it names let BLOG-4 go as recorded", () => {
        // The reference run is BLOG-1's, in a copy of its workspace that this test goes on in.
        const blog1 = { runId: reference.runId, stderr: reference.stderr };
        assert.doesNotMatch(blog1.stderr, /^note:/m, 'nothing earlier to name');

        const blog4 = run('BLOG-4', EXIT.needsOperator);
        const note = blog4.stderr.split('\n')[0]!;
        assert.equal(
          note,
          `note: BLOG-1's change (run ${blog1.runId}, passed) is still in the workspace, and this run builds on it; the recorded answers were made without it, so this run may not go as recorded. ` +
            `To run on the project without it: ticket-runner rollback ${blog1.runId}`,
        );

        // Accepting BLOG-4's scope correction: its Coder's recorded answer undoes BLOG-1's change, BLOG-1's test fails, and the recording has no answer for that.
        const decided = cli('resolve', blog4.runId, 'accept', '--json');
        assert.equal(decided.code, EXIT.error, decided.stderr);
        const finished = (JSON.parse(decided.stdout) as { state: { finished: { reason: { kind: string; message: string } } } }).state
          .finished.reason;
        assert.equal(finished.kind, 'error');
        assert.match(
          finished.message,
          /^the recorded answers in \.tickets\/BLOG-4\.script\.json do not cover this run: it asked the Debugger for answer 2 \(attempt 2\), and the recording holds 1\. /,
        );
        assert.ok(
          finished.message.endsWith(
            `Likely cause: BLOG-1's change (run ${blog1.runId}, passed) is still in the workspace, and the recording was made without it. ` +
              `Roll back this run, then it (Roll Back Run in the editor, or ticket-runner rollback ${blog4.runId}, then ticket-runner rollback ${blog1.runId}) and run this ticket again.`,
          ),
          finished.message,
        );
        assert.doesNotMatch(`${decided.stdout}${decided.stderr}`, /add an answer/i);

        // What the message says to do, in its order, and BLOG-4 again: as recorded, to its pass.
        for (const id of [blog4.runId, blog1.runId]) {
          const r = cli('rollback', id);
          assert.equal(r.code, EXIT.passed, r.stderr);
        }
        const again = run('BLOG-4', EXIT.needsOperator);
        assert.doesNotMatch(again.stderr, /^note:/m, 'both earlier runs are rolled back');
        const accepted = cli('resolve', again.runId, 'accept');
        assert.equal(accepted.code, EXIT.passed, `${accepted.stdout}\n${accepted.stderr}`);
      });
    });
  });
});
