import assert from 'node:assert/strict';
import { startRun } from '../../../src/core';
import { coderWrites, diagnosisFor, right, wrong } from '../../fakes/blog1Scripts';
import { fakeDeps, scripted, ticketPathOf } from '../../fakes/fakeDeps';
import { callsOf, duringTicketTests, eventsOf, ofType, pureRun, typesOf } from './loopRig';

/**
 * A cancel ends the run as cancelled wherever it lands, and the log still ends with
 * run.finished. The real-process versions (a cancelled test process, a real stream) are in
 * test/runs/scenarios/firstShown.test.ts and test/runs/recovery/anthropicRuns.test.ts.
 */

describe('pure: cancellation', () => {
  it('a signal already aborted: the run starts, does no work, and ends cancelled', async () => {
    const controller = new AbortController();
    controller.abort();
    const { state, events } = await pureRun('BLOG-1', { signal: controller.signal });
    assert.equal(state.status, 'cancelled');
    assert.deepEqual(state.finished?.reason, { kind: 'cancelled' });
    assert.equal(state.modelCalls.length, 0);
    assert.deepEqual([typesOf(events)[0], typesOf(events).at(-1)], ['run.started', 'run.finished']);
  });

  it('a cancel during the first test run: no Debugger call, the log ends cancelled', async () => {
    const controller = new AbortController();
    const { state, events } = await pureRun('BLOG-1', {
      signal: controller.signal,
      during: duringTicketTests(() => Promise.resolve(controller.abort())),
    });
    assert.equal(state.status, 'cancelled');
    assert.deepEqual([callsOf(state, 'coder'), callsOf(state, 'debugger')], [1, 0]);
    assert.equal(ofType(events, 'tests.ran').length, 0);
    assert.equal(typesOf(events).at(-1), 'run.finished');
  });

  it('a cancel during a stalled Coder stream ends the call and the run, with the call on record', async () => {
    const controller = new AbortController();
    const script = { coder: [{ expect: { attempt: 1, promptIncludes: [] }, fault: 'stall' as const }], debugger: [] };
    const rig = fakeDeps('blog-api', scripted('blog-api', 'BLOG-1', script));
    const started = startRun(rig.deps, {
      ticketPath: ticketPathOf('BLOG-1'),
      recovery: { startDeadlineMs: 60_000 },
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 20);
    const { state, runId } = await started;
    assert.equal(state.status, 'cancelled');
    const calls = ofType(await eventsOf(rig, runId), 'model.called');
    assert.equal(calls.length, 1);
    assert.equal(calls[0]!.ok, false);
  });

  it('a cancel while the view loads: nothing after run.started happens', async () => {
    const controller = new AbortController();
    const rig = fakeDeps('blog-api', scripted('blog-api', 'BLOG-1'));
    const shown = () => {
      controller.abort();
      return new Promise<void>(() => undefined);
    };
    const { state, runId } = await startRun(rig.deps, { ticketPath: ticketPathOf('BLOG-1'), signal: controller.signal, shown });
    assert.equal(state.status, 'cancelled');
    assert.deepEqual(typesOf(await eventsOf(rig, runId)), ['run.started', 'run.finished']);
  });

  it("a cancel after a failed attempt, during the retry's test run: the first attempt's diagnosis stays on record", async () => {
    const controller = new AbortController();
    let runs = 0;
    const script = { coder: [coderWrites(1, wrong()), coderWrites(2, right())], debugger: [diagnosisFor(1)] };
    const { state } = await pureRun('BLOG-1', {
      script,
      signal: controller.signal,
      during: duringTicketTests(() => Promise.resolve(++runs === 2 ? controller.abort() : undefined)),
    });
    assert.equal(state.status, 'cancelled');
    assert.equal(state.attempts[0]?.diagnosis?.kind, 'code');
    assert.equal(state.attempts[1]?.tests, undefined);
  });
});
