import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { decodeLog } from '../../../src/core/run/logCodec';
import { reduceRun } from '../../../src/core/run/reducer';
import { runStage } from '../../../src/core/run/views/stage';

/** The live stage line, over recorded logs: what the webview says the run is doing after each event. */
describe('runStage', () => {
  const log = (name: string) => decodeLog(readFileSync(path.join(__dirname, '..', '..', 'webview', 'fixtures', name, 'events.jsonl'), 'utf8'), name).events;

  const stages = (name: string) => {
    const events = log(name);
    return events.map((e, i) => runStage(reduceRun(e.runId, events.slice(0, i + 1)), e));
  };

  it('follows a run through its attempts: checks, tests, the Debugger, the next attempt', () => {
    const labels = stages('BLOG-1').map((s) => s?.label ?? null);
    const order = ['Building the manifest', 'Attempt 1: checking (parse, types, lint)', 'Attempt 1: testing', 'Attempt 1: the Debugger is diagnosing', 'Attempt 2: the Coder is writing', 'Attempt 2: testing'];
    let at = 0;
    for (const want of order) {
      const found = labels.indexOf(want, at);
      assert.ok(found >= 0, `"${want}" after position ${at} in ${labels.join(' | ')}`);
      at = found;
    }
    assert.equal(labels[labels.length - 1], null, 'a finished run has no stage');
  });

  it('says the run waits for the operator while a correction is pending, whatever event came last', () => {
    const events = log('BLOG-3');
    const upToRequest = events.findIndex((e) => e.type === 'correction.requested');
    const kept = events.slice(0, upToRequest + 1);
    const s = runStage(reduceRun(kept[0]!.runId, kept), kept[kept.length - 1]);
    assert.equal(s?.step, 'waiting');
  });

  it('has no stage before the first event', () => {
    assert.equal(runStage(reduceRun('x', []), undefined), null);
  });
});
