import { strict as assert } from 'node:assert';
import type { ClockPort } from '../../../src/core/ports/clock';
import type { ModelPort, ModelResponse } from '../../../src/core/ports/model';
import { startWatchdog } from '../../../src/core/recovery/budgets';
import { RunStop } from '../../../src/core/recovery/runStop';
import { memoryStore } from '../../../src/core/run/memoryStore';
import { RunLog } from '../../../src/core/run/runLog';
import { callModel, type CallContext } from '../../../src/core/stages/common/modelCall';

/** A clock that moves only when told: the run's time is the test's to decide. */
class FakeClock implements ClockPort {
  ms = Date.UTC(2026, 10, 23, 9, 0, 0);
  now(): Date {
    return new Date(this.ms);
  }
  newRunId(): string {
    return 'wall-1';
  }
}

/** A model whose every answer takes `tookMs` on the fake clock. */
function slowModel(clock: FakeClock, tookMs: number): ModelPort {
  return {
    info: { provider: 'scripted', model: 'fake', scripted: true },
    complete: () => {
      clock.ms += tookMs;
      const answer: ModelResponse = {
        text: 'ok',
        toolCalls: [],
        stopReason: 'end',
        usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 },
        costUsd: 0,
        latencyMs: tookMs,
        retries: 0,
      };
      return Promise.resolve(answer);
    },
  };
}

function context(clock: FakeClock, model: ModelPort, wallMs: number): CallContext {
  return {
    deps: { model, clock },
    log: new RunLog('wall-1', memoryStore(), clock),
    budget: { attempts: 1, wallMs },
    signal: new AbortController().signal,
    startedAt: clock.now().getTime(),
  };
}

const ask = (ctx: CallContext, attempt: number) =>
  callModel(ctx, { role: 'coder', attempt, system: '', messages: [{ role: 'user', content: 'go' }] });
const calls = (ctx: CallContext) => ctx.log.events.filter((e) => e.type === 'model.called').length;
const wallStop = (err: unknown) =>
  err instanceof RunStop && err.stop.kind === 'budgetExceeded' && err.stop.budget === 'wallMs'
    ? [err.stop.limit, err.stop.used, err.outcome]
    : err;

describe("the wall-time budget on the run's clock", () => {
  it('a call that takes the budget past its limit stops the run after it, with the time the clock says', async () => {
    const clock = new FakeClock();
    const ctx = context(clock, slowModel(clock, 1500), 1000);
    await assert.rejects(ask(ctx, 1), (err) => assert.deepEqual(wallStop(err), [1000, 1500, 'failed']) ?? true);
    assert.equal(calls(ctx), 1, 'the call itself was made and recorded');
  });

  it('no call is made once the clock says the time is up', async () => {
    const clock = new FakeClock();
    const ctx = context(clock, slowModel(clock, 10), 1000);
    await ask(ctx, 1);
    clock.ms += 990;
    await assert.rejects(ask(ctx, 2), (err) => assert.deepEqual(wallStop(err), [1000, 1000, 'failed']) ?? true);
    assert.equal(calls(ctx), 1, 'the second call was refused before it went out');
  });

  it('the watchdog reads the same clock: a run whose time is up is stopped with what the clock says it used', async () => {
    const clock = new FakeClock();
    const startedAt = clock.ms;
    clock.ms += 5_000;
    const dog = startWatchdog(new AbortController().signal, { attempts: 1, wallMs: 1_000 }, startedAt, () => clock.ms);
    const reason = await new Promise<unknown>((resolve) =>
      dog.signal.addEventListener('abort', () => resolve(dog.signal.reason), { once: true }),
    );
    dog.dispose();
    assert.deepEqual(wallStop(reason), [1000, 5000, 'failed']);
  });
});
