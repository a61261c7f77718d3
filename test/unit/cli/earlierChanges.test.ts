import assert from 'node:assert/strict';
import { earlierChangesNote } from '../../../src/cli/earlierChanges';

/** The note `run` writes on stderr before a run when an earlier run's change is still in the workspace. */
describe("run's note about earlier runs' changes", () => {
  const blog1 = { runId: '20261127-083051-afbc27', ticketId: 'BLOG-1', status: 'passed' as const, files: ['src/handlers/posts.ts'] };

  it('names the run and its ticket, says why recorded answers care, and how to roll it back', () => {
    assert.equal(
      earlierChangesNote([blog1], true),
      "note: BLOG-1's change (run 20261127-083051-afbc27, passed) is still in the workspace, and this run builds on it; " +
        'the recorded answers were made without it, so this run may not go as recorded. To run on the project without it: ticket-runner rollback 20261127-083051-afbc27',
    );
  });

  it('with a model of its own, says only that the run builds on it', () => {
    const failed = { ...blog1, status: 'failed' as const };
    assert.equal(
      earlierChangesNote([failed], false),
      "note: BLOG-1's change (run 20261127-083051-afbc27, failed) is still in the workspace, and this run builds on it. To run on the project without it: ticket-runner rollback 20261127-083051-afbc27",
    );
  });
});
