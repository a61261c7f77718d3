import { readFile } from 'node:fs/promises';
import * as path from 'node:path';
import type { LeftoverRun } from '../../../core/loop/rollback';
import { leftoverRuns, rollbackCommands, stillInWorkspace, storedRuns } from '../../../core/loop/rollback';
import type { RunStorePort } from '../../../core/ports/runStore';
import type { RunState } from '../../../core/run/runState';
import { capitalized } from '../../../core/run/views/words';
import { parseTicket } from '../../../core/ticket/ticketLoader';
import { sha256 } from '../../store/fileRunStore';
import { FsWorkspace } from '../../workspace/fsWorkspace';

/**
 * Why a scripted run went another way than its recording: the likeliest cause is an earlier
 * run's change still in the workspace (the sample's tickets run one after another in one
 * folder), since the recording was made on the project without it. Passed runs count too: for
 * a recording, any change it was not made on is a different project. Undefined when there is none.
 * `ticketPath`: the run's ticket, whose scope says which earlier changes the run read.
 */
export async function earlierChangeCause(workspaceRoot: string, store: RunStorePort, ticketPath?: string): Promise<string | undefined> {
  const states = await storedRuns(store);
  // A file this run wrote over since still counts: the recording read it as it was before the earlier run.
  const left = await leftoverRuns({ store, workspace: new FsWorkspace(workspaceRoot), hash: sha256 }, states, {
    passed: true,
    overwritten: true,
  });
  const current = states
    .filter((s) => !s.finished)
    .sort((a, b) => a.runId.localeCompare(b.runId))
    .pop();
  return causeWords(left, current, ticketPath === undefined ? undefined : await ticketFiles(workspaceRoot, ticketPath));
}

/** The files a ticket's scope names, to write or to read, as it is now (a correction may have added some); undefined when it cannot be read. */
async function ticketFiles(workspaceRoot: string, ticketPath: string): Promise<Set<string> | undefined> {
  try {
    const { scope } = parseTicket(ticketPath, await readFile(path.resolve(workspaceRoot, ticketPath), 'utf8'));
    return new Set([...scope.write, ...scope.read]);
  } catch {
    return undefined;
  }
}

/**
 * The cause in words. Only an earlier change to a file of the ticket's scope is named as the
 * likely cause, since that is what the recording read otherwise; earlier changes elsewhere are
 * said as a fact, not as the cause, which stays unknown. With no scope to go by, every earlier
 * change counts.
 *
 * The run asking (`current`, the newest one still going) wrote over the earlier change, so it is
 * rolled back first, or the earlier run's rollback is refused for the files it changed since.
 */
export function causeWords(
  left: readonly LeftoverRun[],
  current: Pick<RunState, 'runId'> | undefined,
  files: ReadonlySet<string> | undefined,
): string | undefined {
  if (!left.length) return undefined;
  const read = files ? left.filter((l) => l.files.some((f) => files.has(f))) : left;
  if (!read.length) {
    return `${capitalized(stillInWorkspace(left))}, though outside this ticket's files; the recording was made without ${left.length > 1 ? 'them' : 'it'}, and what else made this run go another way is not known.`;
  }
  const them = read.length > 1 ? 'them' : 'it';
  const order = current ? [current, ...read] : read;
  return (
    `Likely cause: ${stillInWorkspace(read)}, and the recording was made without ${them}. ` +
    `Roll back ${current ? `this run, then ${them}` : them} (Roll Back Run in the editor, or ${rollbackCommands(order)}) and run this ticket again.`
  );
}
