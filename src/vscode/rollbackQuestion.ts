import type { RollbackPlan } from '../core';

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
