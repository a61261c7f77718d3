import assert from 'node:assert/strict';
import { RunStop } from '../../../src/core/recovery/runStop';
import { budgetStop, startWatchdog, stopFromSignal } from '../../../src/core/recovery/budgets';
import { RecoveryLadder, type LadderStep } from '../../../src/core/recovery/ladder';
import { DEFAULT_RECOVERY, defaultBudget, ladderLength, resolveRecovery } from '../../../src/core/recovery/policy';
import type { Budget, RecoveryPolicy } from '../../../src/core/schema/events';

/** Climbs the ladder from attempt `first`, failing every attempt, and returns what each step was. */
function climb(
  policy: Partial<RecoveryPolicy>,
  budget?: Budget,
  first = 1,
): { rungs: (number | 'first')[]; thinking: boolean[]; end: LadderStep } {
  const p = resolveRecovery(policy);
  const ladder = new RecoveryLadder(p, budget ?? defaultBudget(p), first);
  let plan = ladder.first(undefined);
  const rungs: (number | 'first')[] = ['first'];
  const thinking = [plan.thinking];
  for (;;) {
    const step = ladder.next({
      attempt: plan.attempt,
      summary: 'tests failed: 0 passed, 1 failed',
      failure: 'FAIL x',
      brief: `brief ${plan.attempt}`,
    });
    if (step.kind === 'stop') return { rungs, thinking, end: step };
    assert.equal(step.plan.attempt, plan.attempt + 1, 'attempts are numbered in a row');
    assert.equal(step.plan.brief, `brief ${plan.attempt}`, "the retry carries the Debugger's brief");
    assert.equal(step.plan.lastFailure, 'FAIL x', 'and the failure');
    plan = step.plan;
    rungs.push(plan.rung!.rung);
    thinking.push(plan.thinking);
  }
}

describe('recovery ladder (rungs 2 and 3)', () => {
  it('climbs first, rung 2 twice, rung 3 once with thinking, then stops: retry budget spent', () => {
    const { rungs, thinking, end } = climb({});
    assert.deepEqual(rungs, ['first', 2, 2, 3]);
    assert.deepEqual(thinking, [false, false, false, true]);
    assert.deepEqual(end, { kind: 'stop', stop: { kind: 'retryBudgetSpent', attempts: 4 }, outcome: 'failed' });
    assert.equal(ladderLength(DEFAULT_RECOVERY), 4);
  });

  it('makes rung 2 configurable: N retries, then rung 3', () => {
    assert.deepEqual(climb({ retries: 0 }).rungs, ['first', 3]);
    assert.deepEqual(climb({ retries: 4 }).rungs, ['first', 2, 2, 2, 2, 3]);
  });

  it('skips rung 3 when the attempts already think, or when it is turned off', () => {
    const thinkingOn = climb({ thinking: true });
    assert.deepEqual(thinkingOn.rungs, ['first', 2, 2]);
    assert.deepEqual(thinkingOn.thinking, [true, true, true]);
    assert.deepEqual(climb({ thinkingRung: false }).rungs, ['first', 2, 2]);
    assert.equal(ladderLength(resolveRecovery({ thinking: true })), 3);
  });

  it('lets the attempts budget cut the ladder, with its own typed reason', () => {
    const { rungs, end } = climb({}, { attempts: 2 });
    assert.deepEqual(rungs, ['first', 2]);
    assert.deepEqual(end, { kind: 'stop', stop: { kind: 'budgetExceeded', budget: 'attempts', limit: 2, used: 2 }, outcome: 'failed' });
  });

  it('counts a resumed segment from its own first attempt', () => {
    const ladder = new RecoveryLadder(DEFAULT_RECOVERY, { attempts: 4 }, 3);
    const first = ladder.first('from the correction');
    assert.deepEqual(first, { attempt: 3, thinking: false, brief: 'from the correction' });
    assert.deepEqual(climb({}, undefined, 3).rungs, ['first', 2, 2, 3]);
  });
});

describe('run budgets', () => {
  const usage = { calls: 3, inputTokens: 900, outputTokens: 200, costUsd: 0.25 };
  const kind = (stop: RunStop | undefined) =>
    stop?.stop.kind === 'budgetExceeded' ? [stop.stop.budget, stop.stop.limit, stop.stop.used, stop.outcome] : undefined;

  it('refuses the call past the call budget before it is made', () => {
    assert.deepEqual(kind(budgetStop({ attempts: 4, modelCalls: 3 }, usage, 0, 'beforeCall')), ['modelCalls', 3, 3, 'failed']);
    assert.equal(budgetStop({ attempts: 4, modelCalls: 4 }, usage, 0, 'beforeCall'), undefined);
    assert.equal(budgetStop({ attempts: 4, modelCalls: 3 }, usage, 0, 'afterCall'), undefined, 'the third call itself was within budget');
  });

  it('stops on tokens and dollars once a call has spent them', () => {
    assert.deepEqual(kind(budgetStop({ attempts: 4, tokens: 1000 }, usage, 0, 'afterCall')), ['tokens', 1000, 1100, 'failed']);
    assert.deepEqual(kind(budgetStop({ attempts: 4, dollars: 0.2 }, usage, 0, 'afterCall')), ['dollars', 0.2, 0.25, 'failed']);
    assert.equal(budgetStop({ attempts: 4, tokens: 1100, dollars: 0.25 }, usage, 0, 'afterCall'), undefined);
  });

  it('stops on wall time at either check', () => {
    assert.deepEqual(kind(budgetStop({ attempts: 4, wallMs: 1000 }, usage, 1500, 'beforeCall')), ['wallMs', 1000, 1500, 'failed']);
    assert.deepEqual(kind(budgetStop({ attempts: 4, wallMs: 1000 }, usage, 1000, 'afterCall')), ['wallMs', 1000, 1000, 'failed']);
  });

  it('the watchdog aborts in-flight work with the wall-time stop as the reason', async () => {
    const parent = new AbortController();
    const dog = startWatchdog(parent.signal, { attempts: 1, wallMs: 30 }, Date.now(), Date.now);
    const stopped = await new Promise<unknown>((resolve) =>
      dog.signal.addEventListener('abort', () => resolve(dog.signal.reason), { once: true }),
    );
    dog.dispose();
    assert.ok(stopped instanceof RunStop);
    assert.deepEqual([stopped.stop.kind, stopped.outcome], ['budgetExceeded', 'failed']);
    assert.equal(stopFromSignal(dog.signal), stopped);
  });

  it('the watchdog never stops before its limit, even when its timer fires early by the clock', async () => {
    const parent = new AbortController();
    const t0 = Date.now();
    // After the timer is armed, a clock 5 ms behind the timers: the first firing finds the time not yet up.
    let reads = 0;
    const lagging = () => (reads++ === 0 ? 0 : Date.now() - t0 - 5);
    const dog = startWatchdog(parent.signal, { attempts: 1, wallMs: 20 }, 0, lagging);
    const stopped = await new Promise<unknown>((resolve) =>
      dog.signal.addEventListener('abort', () => resolve(dog.signal.reason), { once: true }),
    );
    dog.dispose();
    assert.ok(stopped instanceof RunStop && stopped.stop.kind === 'budgetExceeded');
    const { used, limit } = stopped.stop as { used: number; limit: number };
    assert.ok(used >= limit, `used ${used} of ${limit}`);
  });

  it("the watchdog passes the operator's cancel through as a cancel", () => {
    const parent = new AbortController();
    const dog = startWatchdog(parent.signal, { attempts: 1, wallMs: 60_000 }, Date.now(), Date.now);
    parent.abort();
    assert.equal(dog.signal.aborted, true);
    assert.deepEqual(stopFromSignal(dog.signal).stop, { kind: 'cancelled' });
    dog.dispose();
  });
});
