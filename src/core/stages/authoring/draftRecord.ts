import type { ClockPort } from '../../ports/clock';
import { memoryStore } from '../../run/memoryStore';
import { reduceRun } from '../../run/reducer';
import { RunLog } from '../../run/runLog';
import type { ModelAdaptation } from '../../schema/events';

/**
 * A draft's record: its model calls and rungs are logged as a run's are (callModel writes
 * them), in a log kept in memory, since a draft is no run and leaves nothing in the workspace.
 * What the user is told is read back from it.
 */
export function draftLog(id: string, clock: Pick<ClockPort, 'now'>): RunLog {
  return new RunLog(`draft-${id}`, memoryStore(), { now: () => clock.now(), newRunId: () => `draft-${id}` });
}

export interface DraftRecord {
  calls: number;
  costUsd: number;
  /** Transport retries inside the calls (a 429 the provider waited out). */
  retries: number;
  /** Each rung that fired and each change made to an answer, in plain words. */
  rungs: string[];
  /** One line: the calls, the cost and how many rungs fired. */
  summary: string;
}

const ADAPTED: Record<ModelAdaptation['kind'], string> = {
  answerExtracted: 'the answer came as text and its JSON was taken out of it',
  answerNotExtracted: 'the answer came as text with no single JSON object in it',
  proseSuppressed: 'the model was told to answer with the tool only',
  thinkingMapped: "extended thinking was sent as the model's closest option",
  thinkingUnavailable: 'extended thinking is not offered by this model and was left off',
};

/** The record of a draft's log, and what the draft itself took out of text answers. */
export function draftRecord(log: RunLog, extracted: readonly string[]): DraftRecord {
  const { usage } = reduceRun(log.runId, log.events);
  const rungs: string[] = [];
  for (const e of log.events) {
    if (e.type === 'rung.fired')
      rungs.push(`rung ${e.rung} (${e.rung === 1 ? 'the answer never became one' : 'a malformed answer'}): ${e.reason}`);
    if (e.type === 'model.called') for (const a of e.adaptations ?? []) rungs.push(`call ${e.attempt}: ${ADAPTED[a.kind]}`);
  }
  rungs.push(...extracted);
  const cost = `$${usage.costUsd.toFixed(4)}`;
  const summary = `${usage.calls} model call${usage.calls === 1 ? '' : 's'}, ${cost}, ${rungs.length ? `${rungs.length} recovery step${rungs.length === 1 ? '' : 's'}` : 'no rung fired'}`;
  return { calls: usage.calls, costUsd: usage.costUsd, retries: usage.retries, rungs, summary };
}
