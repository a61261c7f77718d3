import { cutOf } from '../../../core/loop/resumeRun';
import { reduceRun } from '../../../core/run/reducer';
import type { RunEvent } from '../../../core/schema/events';
import type { ScriptPosition } from './scriptedModel';

/**
 * Where the script of a run that goes on from its log picks up: the calls per role in the
 * part of the log that the core keeps. A run waiting for the operator keeps all of it (an
 * accepted correction goes on after every call it made); an interrupted or cancelled run is
 * resumed after its last ended step (the core's `cutOf`), and the calls of the step that was
 * cut short are made again, so their answers are read again.
 */
export function scriptPosition(runId: string, events: readonly RunEvent[]): ScriptPosition {
  const kept = reduceRun(runId, events).status === 'needsOperator' ? events : events.slice(0, cutOf(runId, events).index);
  const at: ScriptPosition = { coder: 0, debugger: 0, reviewer: 0, testReviewer: 0 };
  for (const e of kept) if (e.type === 'model.called' && e.role !== 'drafter') at[e.role]++;
  return at;
}
