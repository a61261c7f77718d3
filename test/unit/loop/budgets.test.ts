import assert from 'node:assert/strict';
import type { ModelPort } from '../../../src/core/ports/model';
import { startRun } from '../../../src/core';
import { FakeClock } from '../../fakes/fakeClock';
import { fakeDeps, scripted, ticketPathOf } from '../../fakes/fakeDeps';
import { callsOf, decide, duringTicketTests, eventsOf, ofType, pureRun, typesOf } from './loopRig';

/**
 * Each run budget stops the run with its typed reason, through startRun on the fakes. Time is
 * the fake clock's: a test run "takes" what the test says, and the watchdog reads that clock.
 * The wall-time stops again with real processes (a stalled stream, a hung test run):
 * test/runs/scenarios/rungs.test.ts.
 */

const MINUTE = 60_000;

/** The scripted provider, pricing each call as a paid model would. */
function priced(model: ModelPort, costUsd: number): ModelPort {
  return { info: model.info, complete: async (request, signal) => ({ ...(await model.complete(request, signal)), costUsd }) };
}

describe('pure: run budgets stop the run with their typed reason', () => {
  describe('attempts', () => {
    it('a budget smaller than the ladder stops it with budgetExceeded, not retryBudgetSpent; the last attempt is still diagnosed', async () => {
      const { state } = await pureRun('BLOG-1', { budget: { attempts: 1 } });
      assert.deepEqual(state.finished?.reason, { kind: 'budgetExceeded', budget: 'attempts', limit: 1, used: 1 });
      assert.equal(state.status, 'failed');
      assert.deepEqual([callsOf(state, 'coder'), callsOf(state, 'debugger')], [1, 1]);
    });

    it('a budget of two is enough for BLOG-1', async () => {
      const { state } = await pureRun('BLOG-1', { budget: { attempts: 2 } });
      assert.equal(state.status, 'passed', JSON.stringify(state.finished));
      assert.deepEqual(state.budget, { attempts: 2 });
    });
  });

  describe('model calls', () => {
    it('the call past the budget is never made, and no rung receipt is written for it', async () => {
      const { state, events } = await pureRun('BLOG-1', { budget: { attempts: 4, modelCalls: 2 } });
      assert.deepEqual(state.finished?.reason, { kind: 'budgetExceeded', budget: 'modelCalls', limit: 2, used: 2 });
      assert.equal(state.modelCalls.length, 2);
      assert.equal(state.attempts.length, 1, 'no attempt for a retry the budget did not allow');
      assert.equal(ofType(events, 'rung.fired').length, 0);
    });

    it('one call: the Debugger is never asked', async () => {
      const { state } = await pureRun('BLOG-1', { budget: { attempts: 4, modelCalls: 1 } });
      assert.deepEqual([callsOf(state, 'coder'), callsOf(state, 'debugger')], [1, 0]);
      assert.equal(state.finished?.reason.kind, 'budgetExceeded');
    });
  });

  describe('tokens and dollars', () => {
    it('tokens: the call that spends them past the budget stops the run once it answered', async () => {
      const { state } = await pureRun('BLOG-5', { budget: { attempts: 4, tokens: 10 } });
      const reason = state.finished?.reason;
      assert.ok(
        reason?.kind === 'budgetExceeded' && reason.budget === 'tokens' && reason.limit === 10 && reason.used > 10,
        JSON.stringify(reason),
      );
      assert.equal(state.modelCalls.length, 1, 'the call was made and counted');
      assert.equal(state.attempts[0]?.tests, undefined, 'nothing after the call ran');
    });

    it('dollars: a cent a call stops a run with half a cent to spend', async () => {
      const rig = fakeDeps('blog-api', priced(scripted('blog-api', 'BLOG-5'), 0.01));
      const { state } = await startRun(rig.deps, {
        ticketPath: ticketPathOf('BLOG-5'),
        budget: { attempts: 4, dollars: 0.005 },
        signal: new AbortController().signal,
      });
      assert.deepEqual(state.finished?.reason, { kind: 'budgetExceeded', budget: 'dollars', limit: 0.005, used: 0.01 });
    });

    it('dollars: a budget the run stays under lets it pass', async () => {
      const rig = fakeDeps('blog-api', priced(scripted('blog-api', 'BLOG-1'), 0.01));
      const { state } = await startRun(rig.deps, {
        ticketPath: ticketPathOf('BLOG-1'),
        budget: { attempts: 4, dollars: 0.05 },
        signal: new AbortController().signal,
      });
      assert.equal(state.status, 'passed', JSON.stringify(state.finished));
      assert.equal(state.usage.costUsd, 0.03);
    });
  });

  describe('wall time, on the fake clock', () => {
    it('a test run that takes ten minutes of a five-minute budget: the Debugger call after it is never made', async () => {
      const clock = new FakeClock();
      const { state, events } = await pureRun('BLOG-1', {
        clock,
        budget: { attempts: 4, wallMs: 5 * MINUTE },
        during: duringTicketTests(() => Promise.resolve(clock.advance(10 * MINUTE))),
      });
      assert.deepEqual(state.finished?.reason, { kind: 'budgetExceeded', budget: 'wallMs', limit: 5 * MINUTE, used: 10 * MINUTE });
      assert.deepEqual([callsOf(state, 'coder'), callsOf(state, 'debugger')], [1, 0]);
      assert.equal(typesOf(events).at(-1), 'run.finished');
      assert.equal(ofType(events, 'rung.fired').length, 0, 'a budget stop is not a rung');
    });

    it('time that stands still spends nothing: the same run passes under a one-millisecond budget', async () => {
      const { state } = await pureRun('BLOG-1', { budget: { attempts: 4, wallMs: 1 } });
      assert.equal(state.status, 'passed', JSON.stringify(state.finished));
    });

    it('a clock that moves five seconds each time it is read stops the run at the first check past the limit', async () => {
      const { state } = await pureRun('BLOG-1', {
        clock: new FakeClock(Date.UTC(2025, 0, 1), 5000),
        budget: { attempts: 4, wallMs: 30_000 },
      });
      const reason = state.finished?.reason;
      assert.ok(reason?.kind === 'budgetExceeded' && reason.budget === 'wallMs' && reason.used >= 30_000, JSON.stringify(reason));
      assert.ok(state.modelCalls.length < 3, 'stopped before the run could finish');
    });

    it('the watchdog stops a hung test run where it stands, with the wall-time reason', async () => {
      const clock = new FakeClock();
      const hang = duringTicketTests(
        (signal) =>
          new Promise<void>((resolve) => {
            clock.advance(MINUTE);
            signal.addEventListener('abort', () => resolve(), { once: true });
          }),
      );
      const { state, events } = await pureRun('BLOG-1', { clock, budget: { attempts: 4, wallMs: 20 }, during: hang });
      const reason = state.finished?.reason;
      assert.ok(reason?.kind === 'budgetExceeded' && reason.budget === 'wallMs' && reason.used >= MINUTE, JSON.stringify(reason));
      const types = typesOf(events);
      assert.ok(types.includes('coder.attempted') && !types.includes('tests.ran'), types.join(' '));
    });

    it('a resolved correction gets a fresh watchdog: the time the run waited for the operator is not its work', async () => {
      const clock = new FakeClock();
      const first = await pureRun('BLOG-2', { clock, budget: { attempts: 4, wallMs: 5 * MINUTE } });
      assert.equal(first.state.status, 'needsOperator');
      clock.advance(60 * MINUTE);
      const { state } = await decide(first, 'accept');
      assert.equal(state.status, 'passed', JSON.stringify(state.finished));
      assert.ok((await eventsOf(first.rig, first.runId)).length > first.events.length);
    });
  });
});
