import { rollbackCommands, stillInWorkspace, type LeftoverRun } from '../core/loop/rollback';

/**
 * What `run` says on stderr before a run when earlier runs' changes are still in the workspace:
 * a note, not an error, and the run goes on. With recorded answers it says why it matters: they
 * were made on the project without those changes.
 */
export function earlierChangesNote(left: readonly LeftoverRun[], scripted: boolean): string {
  const them = left.length > 1 ? 'them' : 'it';
  const why = scripted ? `; the recorded answers were made without ${them}, so this run may not go as recorded` : '';
  return `note: ${stillInWorkspace(left)}, and this run builds on ${them}${why}. To run on the project without ${them}: ${rollbackCommands(left)}`;
}
