import { CancelledError, errorMessage, isAbort } from '../errors';
import { reduceRun, type RunState } from '../run/reducer';
import type { RunLog } from '../run/runLog';
import { budgetStopOf, startWatchdog } from '../recovery/budgets';
import { RunStop } from '../recovery/runStop';
import { defaultBudget, resolveRecovery } from '../recovery/policy';
import type { Budget, RecoveryPolicy, RunOutcome, StopReason } from '../schema/events';
import type { PipelineDeps, RunContext } from '../stages/common/context';
import { runGates } from '../stages/gates';
import { applyOps, warmOps } from '../stages/ops/applyOps';
import { warmParser } from '../stages/checks/checksStage';
import { recordBaselines, type BaselinesNeeded } from '../stages/checks/baselines';
import { stopIfToolsChanged } from '../stages/checks/judgingTools';
import { listAuthoredCases, putBackHeldOut } from '../stages/checks/authoredCases';
import { runAttempts, type LoopResult } from './innerLoop';
import { resumeFromTests } from './resumeFromTests';
import { runClock } from './openRun';
import { confirmVerdict, emitManifest, loadTicket, materializeTests, type LoadedTicket } from './runSteps';

export interface RunResult {
  runId: string;
  state: RunState;
  logPath: string;
}

/**
 * Where a run starts, and what it carries from before: a first start, a resume after an
 * interruption, and an accepted correction differ only here. `from` is the step the log's
 * `run.resumed.from` names: the manifest or the Coder (then the attempts, with the last
 * diagnosis's brief), or the tests (the code as it is against the tests, a recheck, first).
 */
export type RunEntry = EntryCommon &
  ({ from: 'manifest' | 'coder'; attempt: number; brief?: string } | { from: 'tests'; lastAttempt: number; why: string });

interface EntryCommon {
  /** The baselines still to record; a run that has written anything has none to record, since the workspace moved. */
  baselines?: BaselinesNeeded;
  /** A first start: the view may draw first, and the scope's uncommitted files are recorded. */
  first?: { shown?: (signal: AbortSignal) => Promise<void> };
}

/** What every entry hands over: the run's log, open to append to, and the limits it runs under. */
export interface RunStart {
  /** The run's writing dependencies (writingDeps). */
  deps: PipelineDeps;
  log: RunLog;
  ticketPath: string;
  budget: Budget;
  recovery: RecoveryPolicy;
  /** The caller's signal; the run's own adds the budget's watchdog to it. */
  signal: AbortSignal;
  /**
   * The ticket as loaded before the run existed (a first start refuses a bad ticket before it
   * makes a run); a resumed run loads it inside, where a failure is recorded as its end.
   */
  loaded?: LoadedTicket;
}

/**
 * A run's limits: the caller's, else the run's own as its log records them (a resume), else the
 * defaults, with room for the whole ladder of the recovery policy.
 */
export function runLimits(
  opts: { budget?: Budget; recovery?: Partial<RecoveryPolicy> },
  recorded?: Pick<RunState, 'budget' | 'recovery'>,
): { budget: Budget; recovery: RecoveryPolicy } {
  const recovery = resolveRecovery({ ...recorded?.recovery, ...opts.recovery });
  return { budget: opts.budget ?? recorded?.budget ?? defaultBudget(recovery), recovery };
}

/**
 * The one step sequence of every run: manifest, baselines, rendered tests, the authored tests' cases, ops, the attempts
 * (or a recheck of the code as it is), the gates, the verdict. Each entry skips what its log
 * already holds: the ops applied (pendingOps), the baselines recorded, the attempts ended.
 */
export async function runFrom(start: RunStart, entry: RunEntry): Promise<RunResult> {
  const { deps, log, ticketPath, budget, recovery } = start;
  const now = runClock(deps);
  const startedAt = now();
  const watchdog = startWatchdog(start.signal, budget, startedAt, now);
  const signal = watchdog.signal;
  return drive({ deps, log, signal }, async () => {
    const { ticket, manifest, oracle } = start.loaded ?? (await loadTicket(deps, ticketPath));
    const ctx: RunContext = { deps, log, ticket, ticketPath, manifest, budget, recovery, signal, startedAt, oracle };
    if (entry.first?.shown) await untilShownOrAborted(entry.first.shown, signal);
    await emitManifest(ctx);
    if (entry.first) await recordUncommitted(ctx);
    if (entry.baselines) await baselinesFirst(ctx, entry.baselines);
    await materializeTests(ctx);
    try {
      await listAuthoredCases(ctx);
      await applyOps(ctx);
      const done =
        entry.from === 'tests'
          ? await resumeFromTests(ctx, entry.lastAttempt, entry.why)
          : await attemptsThenGates(ctx, entry.attempt, entry.brief);
      return await confirmVerdict(ctx, done);
    } finally {
      await putBackHeldOut(ctx);
    }
  }).finally(() => watchdog.dispose());
}

async function recordUncommitted(ctx: RunContext): Promise<void> {
  const { manifest } = ctx;
  const dirty = await ctx.deps.environment?.uncommitted([...manifest.scope.write.map((f) => f.path), ...manifest.testFiles], ctx.signal);
  if (dirty?.length) await ctx.log.emit({ type: 'uncommitted.detected', files: dirty });
}

/**
 * The baselines, measured before the first write. The project's tests run here, so the judging
 * tools are checked after them as after every command.
 */
async function baselinesFirst(ctx: RunContext, needed: BaselinesNeeded): Promise<void> {
  // The ops' and the parser's cold starts overlap the baselines instead of following them.
  warmOps(ctx);
  warmParser(ctx);
  await recordBaselines(ctx, needed);
  await stopIfToolsChanged(ctx);
}

async function attemptsThenGates(ctx: RunContext, first: number, brief: string | undefined): Promise<LoopResult> {
  const done = await runAttempts(ctx, first, brief);
  await runGates(ctx, done.attempts);
  return done;
}

/**
 * Runs a stage to its end and records how it ended. Every way out is a `run.finished`
 * with a typed reason: a pass, a RunStop, a cancel, or an unexpected error (recorded,
 * never thrown past the log, so nothing is lost).
 */
async function drive(ctx: Pick<RunContext, 'deps' | 'log' | 'signal'>, body: () => Promise<{ attempts: number }>): Promise<RunResult> {
  let outcome: RunOutcome;
  let reason: StopReason;
  let attempts = reduceRun(ctx.log.runId, ctx.log.events).attempts.length;
  try {
    attempts = (await body()).attempts;
    outcome = 'passed';
    reason = { kind: 'testsPassed' };
  } catch (err) {
    attempts = reduceRun(ctx.log.runId, ctx.log.events).attempts.length;
    // A budget's abort surfaces as whatever the stopped work threw: its signal holds the reason.
    const stop = err instanceof RunStop ? err : budgetStopOf(ctx.signal);
    if (stop) {
      outcome = stop.outcome;
      reason = stop.stop;
    } else if (err instanceof CancelledError || (isAbort(err) && ctx.signal.aborted)) {
      outcome = 'cancelled';
      reason = { kind: 'cancelled' };
    } else {
      outcome = 'error';
      reason = { kind: 'error', message: errorMessage(err) };
    }
  }
  await ctx.log.emit({ type: 'run.finished', outcome, reason, attempts });
  return { runId: ctx.log.runId, state: reduceRun(ctx.log.runId, ctx.log.events), logPath: ctx.deps.store.logPath(ctx.log.runId) };
}

/** The view's wait ends with the run's signal too, whatever the view does: a cancel is never held up. */
async function untilShownOrAborted(shown: (signal: AbortSignal) => Promise<void>, signal: AbortSignal): Promise<void> {
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<void>((resolve) => {
    onAbort = resolve;
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    await Promise.race([shown(signal).catch(() => undefined), aborted]);
  } finally {
    signal.removeEventListener('abort', onAbort!);
  }
  if (signal.aborted) throw new CancelledError('cancelled before the run began its work');
}
