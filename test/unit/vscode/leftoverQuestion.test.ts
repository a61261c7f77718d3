import assert from 'node:assert/strict';
import type { LeftoverRun } from '../../../src/core';
import { leftoverDecision, leftoverQuestion, RUN_ANYWAY } from '../../../src/vscode/rollbackQuestion';

/** What Run Ticket asks when an earlier run's change is still in the workspace, and what each answer does. */
describe("Run Ticket's question about earlier runs' changes", () => {
  const blog1: LeftoverRun = {
    runId: '20261127-083051-afbc27',
    ticketId: 'BLOG-1',
    status: 'passed',
    files: ['src/handlers/posts.ts', 'test/ticket/BLOG-1.test.ts'],
  };
  const blog3: LeftoverRun = {
    runId: '20261127-090000-bbbbbb',
    ticketId: 'BLOG-3',
    status: 'failed',
    files: ['src/format/postSummary.ts'],
  };

  it('names the earlier run and its ticket, says why recorded answers care, and offers to roll it back first', () => {
    const q = leftoverQuestion([blog1], true);
    assert.equal(
      q.message,
      "BLOG-1's change is still in the workspace (its run: passed), and this run would build on it. The recorded answers were made without it, so the run may not go as recorded.",
    );
    assert.equal(q.detail, 'BLOG-1 (passed, run 20261127-083051-afbc27):\n  src/handlers/posts.ts\n  test/ticket/BLOG-1.test.ts');
    assert.deepEqual(q.actions, ['Roll Back BLOG-1 and Run', RUN_ANYWAY]);
  });

  it('with a model of its own, says only that the run would build on it', () => {
    assert.equal(
      leftoverQuestion([blog3]).message,
      "BLOG-3's change is still in the workspace (its run: failed), and this run would build on it.",
    );
  });

  it('names several runs by their tickets', () => {
    const q = leftoverQuestion([blog3, blog1], true);
    assert.match(
      q.message,
      /^The changes of 2 earlier runs \(BLOG-3, BLOG-1\) are still in the workspace, and this run would build on them\. The recorded answers were made without them/,
    );
    assert.deepEqual(q.actions, ['Roll Them Back and Run', RUN_ANYWAY]);
  });

  it('rolls back first, runs anyway, or starts nothing (Cancel, Escape)', () => {
    const q = leftoverQuestion([blog1], true);
    assert.equal(leftoverDecision(q, 'Roll Back BLOG-1 and Run'), 'rollBackFirst');
    assert.equal(leftoverDecision(q, RUN_ANYWAY), 'runAnyway');
    assert.equal(leftoverDecision(q, undefined), 'cancel');
    assert.equal(leftoverDecision(q, 'Cancel'), 'cancel');
  });
});
