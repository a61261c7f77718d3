import type { LeftoverRun, RollbackPlan } from '../core';
import { outcomeWords } from '../core/run/views/words';

/**
 * What "Roll Back Run" asks before it writes: every file it will restore or delete, and the
 * ones that hold changes made since the run, which the CLI would refuse without --force.
 */
export function rollbackQuestion(plan: RollbackPlan): { message: string; detail: string; action: 'Roll Back' | 'Overwrite My Changes' } {
  const detail = plan.steps.map((st) => `${st.action === 'delete' ? 'delete' : 'restore'} ${st.path}${st.changedSinceRun ? ' (changed since the run: your changes would be lost)' : ''}`).join('\n');
  if (plan.conflicts.length) {
    return {
      message: `Roll back run ${plan.runId}? ${plan.conflicts.length} file(s) changed since the run last wrote them, and rolling back overwrites those changes: ${plan.conflicts.join(', ')}.`,
      detail,
      action: 'Overwrite My Changes',
    };
  }
  return { message: `Roll back run ${plan.runId}? ${plan.steps.length} file(s) go back to what they were before the run.`, detail: detail || 'Nothing to change.', action: 'Roll Back' };
}

export const RUN_ANYWAY = 'Run Anyway';
export const ROLL_THEM_BACK = 'Roll Them Back First';

/**
 * What Run Ticket asks when earlier runs that did not pass left changes in place: which runs,
 * which files, and the choice to build on them or roll them back first.
 */
export function leftoverQuestion(leftovers: readonly LeftoverRun[]): { message: string; detail: string; actions: [typeof RUN_ANYWAY, typeof ROLL_THEM_BACK] } {
  const files = leftovers.reduce((n, l) => n + l.files.length, 0);
  return {
    message: `${leftovers.length === 1 ? 'An earlier run' : `${leftovers.length} earlier runs`} that did not pass left ${files} changed file${files === 1 ? '' : 's'} in the workspace. This run would build on them.`,
    detail: leftovers.map((l) => `${l.ticketId} (${outcomeWords(l.status)}, run ${l.runId}):\n${l.files.map((f) => `  ${f}`).join('\n')}`).join('\n'),
    actions: [RUN_ANYWAY, ROLL_THEM_BACK],
  };
}
