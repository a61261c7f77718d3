import type { RunOwner } from '../schema/events';
import type { RunState } from './reducer';

/** A run's status as views show it: `interrupted` is a run still going in its log whose process is gone. */
export type DisplayStatus = RunState['status'] | 'interrupted';

/** Whether the process that drives a run is alive; the adapter asks the OS and the workspace lock. */
export type OwnerProbe = (owner: RunOwner | undefined) => boolean;

/**
 * The log cannot say that its writer died (kill -9, a power loss, a closed window): a run
 * whose last word is not `run.finished` and whose owner is not alive was interrupted.
 */
export function displayStatus(state: RunState, ownerAlive: OwnerProbe): DisplayStatus {
  return state.status === 'running' && !ownerAlive(state.owner) ? 'interrupted' : state.status;
}
