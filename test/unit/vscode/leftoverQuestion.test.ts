import assert from 'node:assert/strict';
import type { LeftoverRun } from '../../../src/core';
import {
  leftoverDecision,
  leftoverQuestion,
  ROLL_BACK_AND_RUN,
  RUN_ANYWAY,
  sampleLeftoverQuestion,
} from '../../../src/vscode/rollbackQuestion';

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
      "BLOG-1's change is still in the workspace (its run: passed), and this run would build on it, though the recorded answers were made without it.",
    );
    assert.equal(q.detail, "BLOG-1's run (passed):\n  src/handlers/posts.ts\n  test/ticket/BLOG-1.test.ts");
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
      /^The changes of 2 earlier runs \(BLOG-3, BLOG-1\) are still in the workspace, and this run would build on them, though the recorded answers were made without them\.$/,
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

  it('names runs by their ticket and time in the detail, never by id', () => {
    const q = leftoverQuestion([blog1, blog3], false, (l) => `${l.ticketId}'s run from ${l.ticketId === 'BLOG-1' ? '08:30' : '09:00'}`);
    assert.equal(
      q.detail,
      "BLOG-1's run from 08:30 (passed):\n  src/handlers/posts.ts\n  test/ticket/BLOG-1.test.ts\nBLOG-3's run from 09:00 (failed):\n  src/format/postSummary.ts",
    );
    assert.ok(![blog1, blog3].some((l) => q.message.includes(l.runId) || q.detail.includes(l.runId)));
  });
});

/** The recorded sample replays only on the sample as it came: the earlier sample runs are rolled back first, with one question. */
describe("Run Ticket's question before the recorded sample replays on a changed sample", () => {
  const run = (ticketId: string, runId: string, files: string[]): LeftoverRun => ({ runId, ticketId, status: 'passed', files });
  const blog1 = run('BLOG-1', '20261127-083051-afbc27', ['src/handlers/posts.ts']);
  const blog5 = run('BLOG-5', '20261127-084000-cccccc', ['src/handlers/posts.ts', 'src/store/postStore.ts']);

  it('says in one sentence what changed and why it matters, with one button and no Run Anyway', () => {
    const q = sampleLeftoverQuestion('BLOG-4', [blog5, blog1]);
    assert.equal(
      q.message,
      "Earlier runs (BLOG-5, BLOG-1) changed the sample, and BLOG-4's recorded answers were made on the sample as it came: roll them back, then run BLOG-4?",
    );
    assert.equal(q.message.split(/[.?!]\s/).length, 1, 'one sentence');
    assert.deepEqual(q.actions, [ROLL_BACK_AND_RUN]);
    assert.equal(leftoverDecision(q, ROLL_BACK_AND_RUN), 'rollBackFirst');
    assert.equal(leftoverDecision(q, undefined), 'cancel');
    assert.equal(leftoverDecision(q, 'Cancel'), 'cancel');
  });

  it("another ticket's run, and the ticket's own earlier run, once or twice", () => {
    assert.match(sampleLeftoverQuestion('BLOG-4', [blog5]).message, /^BLOG-5's run changed the sample, /);
    assert.match(
      sampleLeftoverQuestion('BLOG-1', [blog1]).message,
      /^BLOG-1's earlier run changed the sample, .*: roll it back, then run BLOG-1\?$/,
    );
    const twice = run('BLOG-1', '20261127-090000-dddddd', ['src/handlers/posts.ts']);
    assert.match(sampleLeftoverQuestion('BLOG-1', [twice, blog1]).message, /^BLOG-1's earlier runs changed the sample, .*: roll them back/);
  });

  it('lists each run by name with its files, and no run id', () => {
    const q = sampleLeftoverQuestion('BLOG-4', [blog5], () => "BLOG-5's run from 08:40");
    assert.equal(q.detail, "BLOG-5's run from 08:40 (passed):\n  src/handlers/posts.ts\n  src/store/postStore.ts");
    assert.ok(!q.message.includes(blog5.runId) && !q.detail.includes(blog5.runId));
  });
});
