import assert from 'node:assert/strict';
import { EXIT } from '../../../src/cli/exitCodes';
import { runDistCli } from '../../support/cliProcess';
import { copyFixture } from '../../support/tempWorkspace';

/**
 * The sample's tickets one after another in one folder (dist/cli.js, started outside it): BLOG-1
 * passes and its change stays; BLOG-4 is told so before it runs, and when its recorded answers
 * then fall short, the run ends saying that in plain words, with BLOG-1's change as the likely
 * cause and the rollbacks to do. Done in that order, BLOG-4 goes as recorded.
 */
describe('sample tickets one after another (dist/cli.js)', function () {
  this.timeout(900_000);
  let ws: ReturnType<typeof copyFixture>;
  before(() => {
    ws = copyFixture();
  });
  after(() => ws.dispose());
  const cli = (...args: string[]) => runDistCli([...args, '--workspace', ws.root], { timeoutMs: 300_000 });
  const run = (ticket: string, code: number) => {
    const r = cli('run', `.tickets/${ticket}.ticket.json`, '--model', 'scripted', '--json');
    assert.equal(r.code, code, r.stderr);
    return { runId: (JSON.parse(r.stdout) as { runId: string }).runId, stderr: r.stderr };
  };

  it("says before BLOG-4 that BLOG-1's change is still there, ends BLOG-4 with what happened and its likely cause, and the rollbacks it names let BLOG-4 go as recorded", () => {
    const blog1 = run('BLOG-1', EXIT.passed);
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
    const finished = (JSON.parse(decided.stdout) as { state: { finished: { reason: { kind: string; message: string } } } }).state.finished.reason;
    assert.equal(finished.kind, 'error');
    assert.match(finished.message, /^the recorded answers in \.tickets\/BLOG-4\.script\.json do not cover this run: it asked the Debugger for answer 2 \(attempt 2\), and the recording holds 1\. /);
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
