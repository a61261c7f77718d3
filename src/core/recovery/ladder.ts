import type { Budget, RecoveryPolicy, RunOutcome, StopReason } from '../schema/events';
import { thinkingRungApplies } from './policy';

/** What the next Coder attempt is: the one shape normal and recovery attempts share. */
export interface AttemptPlan {
  attempt: number;
  /** Extended thinking for this attempt (rung 3 turns it on). */
  thinking: boolean;
  /** The Debugger's corrective brief, when there is one. */
  brief?: string;
  /** The previous attempt's failure, as the checks reported it. */
  lastFailure?: string;
  /** The rung that started this attempt: its receipt is written before the attempt runs. */
  rung?: { rung: 2 | 3; reason: string };
}

export type LadderStep = { kind: 'attempt'; plan: AttemptPlan } | { kind: 'stop'; stop: StopReason; outcome: RunOutcome };

/** A failed attempt that the router sent back to the Coder. */
export interface FailedAttempt {
  attempt: number;
  /** One line: what failed ("tests failed: 1 of 2"). */
  summary: string;
  /** The full failure text for the next prompt. */
  failure: string;
  brief?: string;
}

/**
 * Rungs 2 and 3 of the recovery ladder, as a pure state machine over one run
 * segment. How they compose with the rest of the pipeline:
 *
 * - The Debugger diagnoses every failed attempt, the last one included, and the router
 *   decides who owns the fix. Only the `code` route climbs this ladder: rungs 2 and 3 are
 *   the code path's retries. Any other route stops for the operator, since no attempt can
 *   fix a wrong input; so does an escalation by the repeat guard.
 * - Rung 2 retries up to `retries` times with the previous attempt (the workspace holds its
 *   code) and its failure, in the attempts' usual thinking mode. Once they are spent, and
 *   only if they ran with thinking off, rung 3 makes one more attempt with thinking on.
 *   Then the ladder is spent and the run stops with `retryBudgetSpent`.
 * - The attempts budget is a hard ceiling over every attempt of the segment, whichever rung
 *   asked for it. The default budget is the ladder's length, so by default every rung can
 *   fire; a smaller budget cuts the ladder and the run stops with `budgetExceeded`
 *   (attempts), so a report can tell "recovery ran out" from "the operator's cap hit".
 * - Rung 1 retries inside an attempt: it replaces an answer that never became code, not
 *   one that failed verification, so it takes no attempt (its calls still count against
 *   the call, token and dollar budgets). Rung 4 runs inside an attempt too.
 * - After an accepted correction the run resumes as a new segment with a fresh ladder: the
 *   inputs changed, so earlier failures say nothing about the new attempts.
 */
export class RecoveryLadder {
  private made = 0;
  private retriesUsed = 0;
  private thinkingUsed = false;

  constructor(
    private readonly policy: RecoveryPolicy,
    private readonly budget: Budget,
    private readonly firstAttempt: number,
  ) {}

  /** The segment's first attempt: the policy's thinking mode, the Debugger's brief and the failure a resume carries. */
  first(brief: string | undefined, lastFailure?: string): AttemptPlan {
    this.made = 1;
    return { attempt: this.firstAttempt, thinking: this.policy.thinking, brief, ...(lastFailure ? { lastFailure } : {}) };
  }

  /** The step after a failed attempt that was routed to the Coder. */
  next(failed: FailedAttempt): LadderStep {
    let plan: AttemptPlan;
    const base = { attempt: failed.attempt + 1, brief: failed.brief, lastFailure: failed.failure };
    if (this.retriesUsed < this.policy.retries) {
      const retry = this.retriesUsed + 1;
      plan = {
        ...base,
        thinking: this.policy.thinking,
        rung: {
          rung: 2,
          reason: `attempt ${failed.attempt} failed (${failed.summary}); retry ${retry} of ${this.policy.retries} with that attempt and its failure`,
        },
      };
    } else if (thinkingRungApplies(this.policy) && !this.thinkingUsed) {
      plan = {
        ...base,
        thinking: true,
        rung: {
          rung: 3,
          reason: `the retries are spent (${this.policy.retries} retr${this.policy.retries === 1 ? 'y' : 'ies'} with thinking off) and attempt ${failed.attempt} failed (${failed.summary}); one more attempt with extended thinking`,
        },
      };
    } else {
      return { kind: 'stop', stop: { kind: 'retryBudgetSpent', attempts: this.made }, outcome: 'failed' };
    }
    if (this.made >= this.budget.attempts) {
      return {
        kind: 'stop',
        stop: { kind: 'budgetExceeded', budget: 'attempts', limit: this.budget.attempts, used: this.made },
        outcome: 'failed',
      };
    }
    if (plan.rung?.rung === 2) this.retriesUsed++;
    else this.thinkingUsed = true;
    this.made++;
    return { kind: 'attempt', plan };
  }
}
