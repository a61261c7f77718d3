import type { RunState } from '../core/run/runState';
import { outcomeLine } from '../core/run/views/report';
import { outcomeWords } from '../core/run/views/words';

export const OPEN_RUN = 'Open Run';
export const ROLL_BACK = 'Roll Back…';

/**
 * What the editor says when a run it started ends: the ticket, how it ended, and what the user
 * can do next. A run that stopped before its end (cancelled, over budget, failed) and left files
 * it wrote offers to roll them back, since a partial write otherwise stays with no word about it;
 * the rollback itself still asks, listing the files.
 */
export function announcement(
  state: RunState,
  writtenFiles: number,
): { level: 'info' | 'warning'; text: string; actions: string[]; untilDecided?: true } {
  // The correction is decided in the run view or from the palette: its id helps no one here.
  const how = state.finished ? outcomeLine(state.finished, { requestIds: false, gateNames: false }) : outcomeWords(state.status);
  const scripted = state.model?.scripted ? ' (recorded sample, not a live model)' : '';
  // A run waiting for the operator's decision is not over: its files are the proposal's context.
  const left = state.status !== 'passed' && state.status !== 'needsOperator' && writtenFiles > 0;
  const text = `${state.ticketId}: ${how}${scripted}${left ? `. It left ${writtenFiles} changed file${writtenFiles === 1 ? '' : 's'}.` : ''}`;
  // Waiting for a decision is true only until the decision: that notice closes by itself then, so it has no buttons.
  if (state.status === 'needsOperator')
    return { level: 'warning', text: `${text}. Accept or reject it in the run view.`, actions: [], untilDecided: true };
  return { level: state.status === 'passed' ? 'info' : 'warning', text, actions: left ? [OPEN_RUN, ROLL_BACK] : [OPEN_RUN] };
}
