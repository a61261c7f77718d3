import type { LeftoverRun, RollbackPlan } from '../core';
import { outcomeWords } from '../core/run/views/words';

/**
 * What "Roll Back Run" asks before it writes: every file it will restore or delete, and the
 * ones that hold changes made since the run, which the CLI would refuse without --force.
 * `name`: the run as `runName` names it.
 */
export function rollbackQuestion(
  plan: RollbackPlan,
  name: string,
): { message: string; detail: string; action: 'Roll Back' | 'Overwrite My Changes' } {
  const detail = plan.steps
    .map(
      (st) =>
        `${st.action === 'delete' ? 'delete' : 'restore'} ${st.path}${st.changedSinceRun ? ' (changed since the run: your changes would be lost)' : ''}`,
    )
    .join('\n');
  if (plan.conflicts.length) {
    return {
      message: `Roll back ${name}? ${plan.conflicts.length} file(s) changed since the run last wrote them, and rolling back overwrites those changes: ${plan.conflicts.join(', ')}.`,
      detail,
      action: 'Overwrite My Changes',
    };
  }
  return {
    message: `Roll back ${name}? ${plan.steps.length} file(s) go back to what they were before the run.`,
    detail: detail || 'Nothing to change.',
    action: 'Roll Back',
  };
}

export const RUN_ANYWAY = 'Run Anyway';

export interface LeftoverQuestion {
  message: string;
  detail: string;
  /** The button that rolls the earlier runs back, then runs: it names the ticket when there is one. */
  rollBack: string;
  /** Rolling back first is the first button: the run then starts from the project as the ticket expects it. */
  actions: [string, typeof RUN_ANYWAY];
}

/**
 * What Run Ticket asks when earlier runs left their changes in place: which runs, which files,
 * and the choice to roll them back first or build on them. `scripted`: the run replays recorded
 * answers, which were made on the project without those changes.
 */
export function leftoverQuestion(leftovers: readonly LeftoverRun[], scripted = false): LeftoverQuestion {
  const one = leftovers.length === 1 ? leftovers[0] : undefined;
  const them = one ? 'it' : 'them';
  const whose = one
    ? `${one.ticketId}'s change is still in the workspace (its run: ${outcomeWords(one.status)})`
    : `The changes of ${leftovers.length} earlier runs (${leftovers.map((l) => l.ticketId).join(', ')}) are still in the workspace`;
  const rollBack = one ? `Roll Back ${one.ticketId} and Run` : 'Roll Them Back and Run';
  return {
    message: `${whose}, and this run would build on ${them}.${scripted ? ` The recorded answers were made without ${them}, so the run may not go as recorded.` : ''}`,
    detail: leftovers
      .map((l) => `${l.ticketId} (${outcomeWords(l.status)}, run ${l.runId}):\n${l.files.map((f) => `  ${f}`).join('\n')}`)
      .join('\n'),
    rollBack,
    actions: [rollBack, RUN_ANYWAY],
  };
}

/** What the user's answer to the question means; no answer (Escape, Cancel) starts nothing. */
export function leftoverDecision(
  q: Pick<LeftoverQuestion, 'rollBack'>,
  choice: string | undefined,
): 'rollBackFirst' | 'runAnyway' | 'cancel' {
  if (choice === q.rollBack) return 'rollBackFirst';
  return choice === RUN_ANYWAY ? 'runAnyway' : 'cancel';
}
