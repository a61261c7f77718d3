import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { decodeLog } from '../../src/core/run/logCodec';
import { reduceRun } from '../../src/core/run/reducer';
import { RunEvent } from '../../src/core/schema/events';

/** A real run's log recorded for the view tests (test/webview/fixtures/<name>), and its state. */
export function recorded(name: string) {
  const events = decodeLog(readFileSync(path.join(__dirname, '..', 'webview', 'fixtures', name, 'events.jsonl'), 'utf8'), name).events;
  return { events, state: reduceRun(events[0]!.runId, events) };
}

/**
 * A recorded run's log up to the first event `last` accepts, then `run.finished` with `finished`:
 * the log of a run that stopped there (a smaller budget, say), and its state.
 */
export function endedAfter(
  name: string,
  last: (e: RunEvent) => boolean,
  finished: Pick<Extract<RunEvent, { type: 'run.finished' }>, 'outcome' | 'reason' | 'attempts'>,
) {
  const all = recorded(name).events;
  const at = all.findIndex(last);
  if (at < 0) throw new Error(`no such event in ${name}'s log`);
  const kept = all.slice(0, at + 1);
  const end = kept[at]!;
  const events = [...kept, RunEvent.parse({ runId: end.runId, seq: end.seq + 1, ts: end.ts, type: 'run.finished', ...finished })];
  return { events, state: reduceRun(end.runId, events) };
}
