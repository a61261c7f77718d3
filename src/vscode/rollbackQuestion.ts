import type { LeftoverRun, RollbackPlan } from '../core';
import { outcomeWords } from '../core/run/views/words';
import { capitalized } from './runNotices';

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
  actions: [string, typeof RUN_ANYWAY] | [string];
}

/**
 * What Run Ticket asks when earlier runs left their changes in place, in one sentence: which runs,
 * and the choice to roll them back first or build on them; the detail lists each one's files.
 * `scripted`: the run replays recorded answers, which were made on the project without those
 * changes. `nameOf`: a run as a person names it (by its ticket and time); its id stays in the log.
 */
export function leftoverQuestion(
  leftovers: readonly LeftoverRun[],
  scripted = false,
  nameOf: (l: LeftoverRun) => string = (l) => `${l.ticketId}'s run`,
): LeftoverQuestion {
  const one = leftovers.length === 1 ? leftovers[0] : undefined;
  const them = one ? 'it' : 'them';
  const whose = one
    ? `${one.ticketId}'s change is still in the workspace (its run: ${outcomeWords(one.status)})`
    : `The changes of ${leftovers.length} earlier runs (${leftovers.map((l) => l.ticketId).join(', ')}) are still in the workspace`;
  const rollBack = one ? `Roll Back ${one.ticketId} and Run` : 'Roll Them Back and Run';
  return {
    message: `${whose}, and this run would build on ${them}${scripted ? `, though the recorded answers were made without ${them}` : ''}.`,
    detail: leftoverFiles(leftovers, nameOf),
    rollBack,
    actions: [rollBack, RUN_ANYWAY],
  };
}

/** Each earlier run by its name and outcome, then the files it still holds. */
function leftoverFiles(leftovers: readonly LeftoverRun[], nameOf: (l: LeftoverRun) => string): string {
  return leftovers
    .map((l) => `${capitalized(nameOf(l))} (${outcomeWords(l.status)}):\n${l.files.map((f) => `  ${f}`).join('\n')}`)
    .join('\n');
}

export const ROLL_BACK_AND_RUN = 'Roll Back and Run';

/**
 * What Run Ticket asks before the recorded sample replays a ticket on a sample that earlier runs
 * changed. A recording replays only on the project it was made on, so building on them is no
 * choice here (the replay would stop where the recording no longer fits): the one button rolls
 * every earlier run back, then runs; anything else starts nothing.
 */
export function sampleLeftoverQuestion(
  ticketId: string,
  leftovers: readonly LeftoverRun[],
  nameOf: (l: LeftoverRun) => string = (l) => `${l.ticketId}'s run`,
): LeftoverQuestion {
  const tickets = [...new Set(leftovers.map((l) => l.ticketId))];
  const whose =
    tickets.length === 1
      ? // "earlier" tells the ticket's own runs from the one about to start.
        `${tickets[0]!}'s ${tickets[0] === ticketId ? 'earlier ' : ''}run${leftovers.length > 1 ? 's' : ''}`
      : `Earlier runs (${tickets.join(', ')})`;
  const them = leftovers.length === 1 ? 'it' : 'them';
  return {
    message: `${capitalized(whose)} changed the sample, and ${ticketId}'s recorded answers were made on the sample as it came: roll ${them} back, then run ${ticketId}?`,
    detail: leftoverFiles(leftovers, nameOf),
    rollBack: ROLL_BACK_AND_RUN,
    actions: [ROLL_BACK_AND_RUN],
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
