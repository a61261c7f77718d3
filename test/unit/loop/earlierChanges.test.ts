import assert from 'node:assert/strict';
import { earlierChanges, leftoverWords, rollbackCommands, rollbackRun, stillInWorkspace } from '../../../src/core';
import { pureRun } from './loopRig';

/**
 * Before a run: the earlier runs whose change is still in the workspace, read from the run store
 * (the runs that passed only when asked: a recording needs the project as it was recorded).
 */
describe('pure: earlier runs whose change is still in the workspace', () => {
  it('names a passed run only when asked, and no run once it is rolled back', async () => {
    const run = await pureRun('BLOG-1');
    assert.equal(run.state.status, 'passed', JSON.stringify(run.state.finished));
    const deps = run.rig.deps;
    assert.deepEqual(await earlierChanges(deps), [], 'a passed run is what the next ticket builds on');
    const left = await earlierChanges(deps, { passed: true });
    assert.deepEqual(
      left.map((l) => ({ ...l, files: [...l.files].sort() })),
      [{ runId: run.runId, ticketId: 'BLOG-1', status: 'passed', files: ['src/handlers/posts.ts', 'test/ticket/BLOG-1.test.ts'] }],
    );
    assert.equal(leftoverWords(left[0]!), `BLOG-1's change (run ${run.runId}, passed)`);
    assert.equal(stillInWorkspace(left), `BLOG-1's change (run ${run.runId}, passed) is still in the workspace`);
    assert.equal(rollbackCommands(left), `ticket-runner rollback ${run.runId}`);
    await rollbackRun(deps, run.runId);
    assert.deepEqual(await earlierChanges(deps, { passed: true }), [], 'rolled back: nothing of it is left');
  });

  it("leaves out a file changed since the run: it is the user's now", async () => {
    const run = await pureRun('BLOG-1');
    const deps = run.rig.deps;
    await deps.workspace.writeFile('src/handlers/posts.ts', "// the user's own version\n");
    const left = await earlierChanges(deps, { passed: true });
    assert.deepEqual(left[0]?.files, ['test/ticket/BLOG-1.test.ts']);
  });

  it('names several runs, newest first, in one sentence', () => {
    const runs = [
      { runId: '20261127-090000-bbbbbb', ticketId: 'BLOG-3', status: 'needsOperator' as const, files: ['a.ts'] },
      { runId: '20261127-080000-aaaaaa', ticketId: 'BLOG-1', status: 'passed' as const, files: ['b.ts'] },
    ];
    assert.equal(
      stillInWorkspace(runs),
      "BLOG-3's change (run 20261127-090000-bbbbbb, waiting for your decision) and BLOG-1's change (run 20261127-080000-aaaaaa, passed) are still in the workspace",
    );
    assert.equal(
      rollbackCommands(runs),
      'ticket-runner rollback 20261127-090000-bbbbbb, then ticket-runner rollback 20261127-080000-aaaaaa',
    );
  });
});
