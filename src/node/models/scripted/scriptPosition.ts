import { cutOf } from '../../../core/loop/resumeRun';
import { reduceRun } from '../../../core/run/reducer';
import type { RunEvent } from '../../../core/schema/events';
import type { ScriptPosition, ScriptStart } from './scriptedModel';

/**
 * Where the script of a run that goes on from its log picks up: the calls per role in the
 * part of the log that the core keeps. A run waiting for the operator keeps all of it (an
 * accepted correction goes on after every call it made); an interrupted or cancelled run is
 * resumed after its last ended step (the core's `cutOf`), and the calls of the step that was
 * cut short are made again, so their answers are read again.
 *
 * A resume after an attempt passed runs the tests again as a new attempt (a recheck), which the
 * recording, made from an uninterrupted run, does not have: the attempt numbers of the calls after
 * it are shifted by one for each such resume, the kept ones and this one. (The recheck after an
 * accepted correction is the recording's own: its `run.resumed` names no attempt.)
 */
export function scriptPosition(runId: string, events: readonly RunEvent[]): Required<ScriptStart> {
  const waiting = reduceRun(runId, events).status === 'needsOperator';
  const cut = waiting ? undefined : cutOf(runId, events);
  const kept = cut ? events.slice(0, cut.index) : events;
  const at: ScriptPosition = { coder: 0, debugger: 0, reviewer: 0, testReviewer: 0 };
  let attemptShift = cut?.passed ? 1 : 0;
  for (const e of kept) {
    if (e.type === 'model.called' && e.role !== 'drafter') at[e.role]++;
    if (e.type === 'run.resumed' && e.from === 'tests' && e.attempt !== undefined) attemptShift++;
  }
  return { ...at, attemptShift };
}
