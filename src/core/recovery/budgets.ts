import { RunStop } from './runStop';
import type { Budget } from '../schema/events';

export interface Usage {
  calls: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
}

/**
 * The budget a run has spent, if any. Before a call, a call budget that is used up stops
 * the next call (so `modelCalls: 3` means three calls, not four); tokens and dollars are
 * only known once a call answered, so they are checked after it. Wall time, both.
 */
export function budgetStop(budget: Budget, usage: Usage, elapsedMs: number, phase: 'beforeCall' | 'afterCall'): RunStop | undefined {
  const stop = (kind: 'modelCalls' | 'tokens' | 'dollars' | 'wallMs', limit: number, used: number) =>
    new RunStop({ kind: 'budgetExceeded', budget: kind, limit, used }, 'failed');
  if (phase === 'beforeCall' && budget.modelCalls !== undefined && usage.calls >= budget.modelCalls)
    return stop('modelCalls', budget.modelCalls, usage.calls);
  if (phase === 'afterCall') {
    const tokens = usage.inputTokens + usage.outputTokens;
    if (budget.tokens !== undefined && tokens > budget.tokens) return stop('tokens', budget.tokens, tokens);
    if (budget.dollars !== undefined && usage.costUsd > budget.dollars) return stop('dollars', budget.dollars, usage.costUsd);
  }
  if (budget.wallMs !== undefined && elapsedMs >= budget.wallMs) return stop('wallMs', budget.wallMs, Math.round(elapsedMs));
  return undefined;
}

/**
 * The RunStop an aborted signal carries: the watchdog aborts with its budget stop, so
 * whatever was in flight (a model stream, a test process) ends with that typed reason;
 * any other abort is the operator's cancel.
 */
export function stopFromSignal(signal: AbortSignal): RunStop {
  return signal.reason instanceof RunStop ? signal.reason : new RunStop({ kind: 'cancelled' }, 'cancelled');
}

/** The budget stop an aborted signal carries, if that is why it aborted. */
export function budgetStopOf(signal: AbortSignal): RunStop | undefined {
  return signal.aborted && signal.reason instanceof RunStop ? signal.reason : undefined;
}

export interface RunWatchdog {
  /** Aborts when the parent does, or when the wall-time budget runs out (reason: its RunStop). */
  readonly signal: AbortSignal;
  dispose(): void;
}

/**
 * The run's own signal: the caller's cancel plus the wall-time budget. Checking the clock
 * between steps is not enough, since one test run or one model stream can outlast the
 * budget on its own; aborting stops it where it stands. A run resumed after a correction
 * gets a new watchdog: the time it waited for the operator was not the run's work. `now` is
 * the run's clock (PipelineDeps.clock), so a test can drive the budget with a fake one.
 */
export function startWatchdog(parent: AbortSignal, budget: Budget, startedAt: number, now: () => number): RunWatchdog {
  const controller = new AbortController();
  const relay = () => controller.abort(parent.reason);
  if (parent.aborted) relay();
  else parent.addEventListener('abort', relay, { once: true });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const wallMs = budget.wallMs;
  // Timers may fire a millisecond before the clock says the time is up: the stop is armed
  // again for the rest, so a stop never says it used less than its limit.
  const arm = (wallMs: number) => {
    timer = setTimeout(
      () => {
        const used = now() - startedAt;
        if (used < wallMs) return arm(wallMs);
        controller.abort(new RunStop({ kind: 'budgetExceeded', budget: 'wallMs', limit: wallMs, used: Math.floor(used) }, 'failed'));
      },
      Math.max(0, Math.ceil(wallMs - (now() - startedAt))),
    );
  };
  if (wallMs !== undefined && !controller.signal.aborted) arm(wallMs);
  return {
    signal: controller.signal,
    dispose: () => {
      if (timer !== undefined) clearTimeout(timer);
      parent.removeEventListener('abort', relay);
    },
  };
}
