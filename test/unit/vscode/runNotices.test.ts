import assert from 'node:assert/strict';
import type { RollbackPlan } from '../../../src/core';
import { rollbackQuestion } from '../../../src/vscode/rollbackQuestion';
import {
  deleteQuestion,
  failedNotice,
  nothingToAcceptNotice,
  rolledBackNotice,
  staleRollBackNotice,
  saveScriptTitle,
  scriptSavedNotice,
} from '../../../src/vscode/runNotices';

const RUN_ID = '20261207-104914-f26999';
const NAME = "BLOG-1's run from 10:49";

/** A plan as planRollback returns it, for one run. */
function aPlan(over: Partial<RollbackPlan> = {}): RollbackPlan {
  return {
    runId: RUN_ID,
    steps: [{ path: 'src/posts.ts', action: 'restore', before: 'b1', mode: null, changedSinceRun: false }],
    conflicts: [],
    folders: [],
    ...over,
  };
}

/** The dialogs and notifications about one run name it by its ticket and time; its id is for the log. */
describe('what the editor says about a run names it as a person would', () => {
  it('the Roll Back question names the run by its ticket and time, never its id', () => {
    const q = rollbackQuestion(aPlan(), NAME);
    assert.equal(q.message, "Roll back BLOG-1's run from 10:49? 1 file(s) go back to what they were before the run.");
    assert.equal(q.detail, 'restore src/posts.ts');
    const conflicted = rollbackQuestion(
      aPlan({
        steps: [{ path: 'src/posts.ts', action: 'restore', before: 'b1', mode: null, changedSinceRun: true }],
        conflicts: ['src/posts.ts'],
      }),
      NAME,
    );
    assert.match(conflicted.message, /^Roll back BLOG-1's run from 10:49\? 1 file\(s\) changed since the run last wrote them/);
    for (const text of [q.message, q.detail, conflicted.message, conflicted.detail]) assert.ok(!text.includes(RUN_ID), text);
  });

  it('the toast after a rollback, the Delete question and a failure name it the same way', () => {
    assert.equal(rolledBackNotice(NAME), "BLOG-1's run from 10:49 is rolled back: the files it wrote are as they were before it.");
    assert.equal(deleteQuestion(NAME), "Delete BLOG-1's run from 10:49 and its log? Files it wrote stay as they are.");
    assert.equal(failedNotice('Rolling back', NAME), "Rolling back BLOG-1's run from 10:49 failed");
  });

  it('a stale Roll Back… offer says what is true now: rolled back, or deleted', () => {
    assert.equal(
      staleRollBackNotice(NAME, false),
      "BLOG-1's run from 10:49 is already rolled back: the files it wrote are as they were before it.",
    );
    assert.equal(staleRollBackNotice(NAME, true), "BLOG-1's run from 10:49 was deleted since: there is no run to roll back.");
  });

  it('a run with no ticket id still starts its sentence with a capital', () => {
    assert.equal(
      rolledBackNotice('the run from 10:49'),
      'The run from 10:49 is rolled back: the files it wrote are as they were before it.',
    );
    assert.equal(nothingToAcceptNotice('the run from 10:49'), 'The run from 10:49 waits for no decision: nothing to accept.');
  });

  it('Save Run as Script names the run in its dialog and its toast', () => {
    assert.equal(saveScriptTitle(NAME), "Ticket Runner: Save BLOG-1's run from 10:49 as a script");
    assert.equal(
      scriptSavedNotice(NAME, 3, '.tickets/BLOG-1.script.json'),
      "Saved 3 model answer(s) of BLOG-1's run from 10:49 to .tickets/BLOG-1.script.json. The scripted model replays it when it is the ticket's .script.json.",
    );
    assert.equal(nothingToAcceptNotice(NAME), "BLOG-1's run from 10:49 waits for no decision: nothing to accept.");
  });
});
