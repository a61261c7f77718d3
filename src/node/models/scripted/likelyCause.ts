import { leftoverRuns, rollbackCommands, stillInWorkspace, storedRuns } from '../../../core/loop/rollback';
import type { RunStorePort } from '../../../core/ports/runStore';
import { sha256 } from '../../store/fileRunStore';
import { FsWorkspace } from '../../workspace/fsWorkspace';

/**
 * Why a scripted run went another way than its recording: the likeliest cause is an earlier
 * run's change still in the workspace (the sample's tickets run one after another in one
 * folder), since the recording was made on the project without it. Passed runs count too: for
 * a recording, any change it was not made on is a different project. Undefined when there is none.
 *
 * The run asking is the newest one still going (it has not finished, or goes on after a
 * decision): it wrote over the earlier change, so it is rolled back first, or the earlier
 * run's rollback is refused for the files it changed since.
 */
export async function earlierChangeCause(workspaceRoot: string, store: RunStorePort): Promise<string | undefined> {
  const states = await storedRuns(store);
  const left = await leftoverRuns({ store, workspace: new FsWorkspace(workspaceRoot), hash: sha256 }, states, { passed: true });
  if (!left.length) return undefined;
  const current = states
    .filter((s) => !s.finished)
    .sort((a, b) => a.runId.localeCompare(b.runId))
    .pop();
  const them = left.length > 1 ? 'them' : 'it';
  const order = current ? [current, ...left] : left;
  return (
    `Likely cause: ${stillInWorkspace(left)}, and the recording was made without ${them}. ` +
    `Roll back ${current ? `this run, then ${them}` : them} (Roll Back Run in the editor, or ${rollbackCommands(order)}) and run this ticket again.`
  );
}
