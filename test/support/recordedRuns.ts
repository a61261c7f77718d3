import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { decodeLog } from '../../src/core/run/logCodec';
import { reduceRun } from '../../src/core/run/reducer';

/** A real run's log recorded for the view tests (test/webview/fixtures/<name>), and its state. */
export function recorded(name: string) {
  const events = decodeLog(readFileSync(path.join(__dirname, '..', 'webview', 'fixtures', name, 'events.jsonl'), 'utf8'), name).events;
  return { events, state: reduceRun(events[0]!.runId, events) };
}
