import type { Budget, RecoveryPolicy } from '../schema/events';
import { STREAM_WATCH_DEFAULTS } from './anomalies';

/** Extended thinking's token budget when a provider takes one (Anthropic's, and the option vscode.lm maps to Claude models). */
export const THINKING_BUDGET_TOKENS = 8000;

/** The defaults: rung 2 retries twice, rung 3 once, rung 4 three tool calls an attempt. */
export const DEFAULT_RECOVERY: RecoveryPolicy = {
  retries: 2,
  thinkingRung: true,
  thinking: false,
  maxToolCalls: 3,
  proseCharLimit: STREAM_WATCH_DEFAULTS.proseCharLimit,
  startDeadlineMs: STREAM_WATCH_DEFAULTS.startDeadlineMs,
  // Thinking streams no text until it is done: a deadline fit for text would stop every thinking call.
  thinkingStartDeadlineMs: 120_000,
};

export function resolveRecovery(overrides: Partial<RecoveryPolicy> | undefined): RecoveryPolicy {
  const defined = Object.fromEntries(Object.entries(overrides ?? {}).filter(([, v]) => v !== undefined));
  return { ...DEFAULT_RECOVERY, ...defined };
}

/**
 * How many Coder attempts the ladder can make in one run segment: the first, rung 2's
 * retries, and rung 3's thinking attempt when it applies.
 */
export function ladderLength(policy: RecoveryPolicy): number {
  return 1 + policy.retries + (thinkingRungApplies(policy) ? 1 : 0);
}

/** Rung 3 is "rung 2 spent with thinking off": with thinking always on there is nothing to turn on. */
export function thinkingRungApplies(policy: RecoveryPolicy): boolean {
  return policy.thinkingRung && !policy.thinking;
}

/**
 * The budget a run gets when the caller names none: enough attempts for the whole ladder,
 * so that the defaults let every rung fire; a smaller attempts budget cuts the ladder short
 * and the run stops with `budgetExceeded` (attempts) instead of `retryBudgetSpent`.
 */
export function defaultBudget(policy: RecoveryPolicy): Budget {
  return { attempts: ladderLength(policy) };
}

/**
 * The budget the hosts (the CLI's flags, the extension's settings) give a run: the limits the
 * user set, and room for the whole ladder of `recovery` unless an attempts limit is set.
 */
export function runBudget(recovery: Partial<RecoveryPolicy>, limits: Partial<Budget>): Budget {
  const defined = Object.fromEntries(Object.entries(limits).filter(([, v]) => v !== undefined)) as Partial<Budget>;
  return { ...defaultBudget(resolveRecovery(recovery)), ...defined };
}
