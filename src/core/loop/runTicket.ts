import { CancelledError, errorMessage, isAbort, UserInputError } from '../errors';
import { wholeLog } from '../run/logCodec';
import { pendingCorrection, reduceRun, type RunState } from '../run/reducer';
import { RunLog } from '../run/runLog';
import { budgetStopOf, startWatchdog } from '../recovery/budgets';
import type { Budget, RecoveryPolicy, RunOutcome, StopReason } from '../schema/events';
import { DEFAULT_BUDGET, type PipelineDeps, type RunContext } from '../stages/common/context';
import { RunStop } from '../recovery/runStop';
import { defaultBudget, resolveRecovery } from '../recovery/policy';
import { applyProposal } from '../stages/proposals/correctionRequests';
import { raisedByGates, runGates } from '../stages/gates';
import { resumeFromTests } from './resumeFromTests';
import { runAttempts } from './innerLoop';
import { buildManifest, manifestHash } from '../stages/manifest/manifestBuilder';
import { materialize } from '../stages/materializer';
import { applyOps, warmOps } from '../stages/ops/applyOps';
import { warmParser } from '../stages/checks/checksStage';
import { recordBaselines } from '../stages/checks/baselines';
import { guardOracle } from '../stages/checks/oracle';
import { stopIfToolsChanged } from '../stages/checks/judgingTools';
import { Oracle } from '../stages/common/oraclePins';
import { normalizeRelPath } from '../schema/paths';
import { parseTicket } from '../ticket/ticketLoader';
import { placeholderPaths, TEMPLATE_MARK } from '../ticket/ticketTemplate';
import { trackedWorkspace } from './trackedWorkspace';


export interface RunOptions {
  ticketPath: string;
  budget?: Budget;
  /** The recovery rungs' settings; unset fields take the defaults (src/core/recovery/policy.ts). */
  recovery?: Partial<RecoveryPolicy>;
  signal: AbortSignal;
  /**
   * Awaited once `run.started` is written, before the run's heavy work (the baseline checks,
   * the project's tests): the editor lets the run's view draw the first event first, as on a
   * machine with few cores the view's page and the run compete. The caller bounds the wait.
   */
  shown?: (signal: AbortSignal) => Promise<void>;
}

export interface RunResult {
  runId: string;
  state: RunState;
  logPath: string;
}

export async function loadTicket(deps: PipelineDeps, ticketPath: string) {
  const text = await deps.workspace.readFile(ticketPath);
  if (text === null) throw new UserInputError(`no ticket at ${ticketPath}: give a path relative to the workspace, such as .tickets/BLOG-1.ticket.json`);
  const ticket = parseTicket(ticketPath, text);
  const unwritten = placeholderPaths(ticket);
  if (unwritten.length) {
    const what = `${ticketPath} still holds the new ticket's placeholders (${TEMPLATE_MARK}) at ${unwritten.join(', ')}: write them first`;
    throw new UserInputError(`${what} (ticket-runner validate lists them)`, `${what} (the Problems panel lists them)`);
  }
  const manifest = await buildManifest({ ticket, ticketPath, workspace: deps.workspace, diagnostics: deps.diagnostics });
  const oracle = new Oracle(deps.hash);
  oracle.pin(ticketPath, text);
  return { ticket, manifest, oracle };
}

/** Renders the test plan into the workspace: the only writer of test files is this function. */
export async function materializeTests(ctx: RunContext): Promise<void> {
  const { manifest, log, deps, oracle } = ctx;
  const rendered = materialize(manifest.testPlan, manifest.runner.framework, { language: manifest.testLanguage, moduleKind: manifest.moduleKind });
  const written = [];
  const files = [];
  for (const f of rendered) {
    const before = await deps.workspace.readFile(f.path);
    const after = await log.putBlob(f.content);
    if (before !== f.content) {
      await deps.workspace.writeFile(f.path, f.content);
      written.push({ path: f.path, before: before === null ? null : await log.putBlob(before), after });
    }
    files.push({ path: f.path, hash: after });
    oracle?.pin(f.path, f.content);
  }
  if (written.length) await log.emit({ type: 'files.written', attempt: 0, by: 'materializer', files: written });
  await log.emit({ type: 'tests.materialized', framework: manifest.runner.framework, files });
}

/**
 * The last word before "passed": the oracle still has the bytes the run wrote and read. A
 * change here (a process the code left behind, a gate's tool) fails the run: it cannot pass
 * on a judge that moved.
 */
export async function confirmVerdict<T extends { attempts: number }>(ctx: RunContext, done: T): Promise<T> {
  await stopIfToolsChanged(ctx);
  const tampered = await guardOracle(ctx, done.attempts, 'beforeVerdict');
  if (tampered.length) throw new RunStop({ kind: 'oracleTampered', files: tampered.map((t) => t.path) }, 'failed');
  return done;
}

export async function emitManifest(ctx: RunContext): Promise<void> {
  await ctx.log.emit({ type: 'manifest.built', manifest: ctx.manifest, hash: manifestHash(ctx.manifest, ctx.deps.hash) });
}

/**
 * Runs a stage to its end and records how it ended. Every way out is a `run.finished`
 * with a typed reason: a pass, a RunStop, a cancel, or an unexpected error (recorded,
 * never thrown past the log, so nothing is lost).
 */
export async function drive(ctx: Pick<RunContext, 'deps' | 'log' | 'signal'>, body: () => Promise<{ attempts: number }>): Promise<RunResult> {
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

export function openLog(deps: PipelineDeps, runId: string, existing: Parameters<typeof reduceRun>[1] = []): RunLog {
  const log = new RunLog(runId, deps.store, deps.clock, existing, deps.redact);
  if (deps.onEvent) log.onEvent(deps.onEvent);
  return log;
}

/**
 * The run's time in milliseconds, read from its clock port like its events' stamps, so the
 * wall-time budget counts the same time the log shows (and a test's clock can spend it).
 */
export const runClock = (deps: Pick<PipelineDeps, 'clock'>) => (): number => deps.clock.now().getTime();

/** The dependencies of a run that writes: its workspace records what rollback needs (trackedWorkspace). */
export function writingDeps(deps: PipelineDeps, log: RunLog): PipelineDeps {
  return { ...deps, workspace: trackedWorkspace(deps.workspace, log, deps.hash) };
}

/**
 * Takes a ticket through the pipeline: manifest, rendered tests, the inner loop. A
 * malformed ticket or a bad path throws a UserInputError before any run exists.
 */
export async function startRun(deps: PipelineDeps, opts: RunOptions): Promise<RunResult> {
  const ticketPath = normalizeRelPath(opts.ticketPath);
  const { ticket, manifest, oracle } = await loadTicket(deps, ticketPath);
  // Said once, before any run exists, instead of a missing-module error on every attempt.
  const missing = await deps.environment?.dependencyProblem();
  if (missing) throw new UserInputError(missing);
  const recovery = resolveRecovery(opts.recovery);
  const budget = opts.budget ?? defaultBudget(recovery);
  const log = openLog(deps, deps.clock.newRunId());
  await log.emit({
    type: 'run.started',
    ticketId: ticket.id,
    ticketPath,
    model: deps.model.info,
    budget,
    workspace: deps.workspaceRoot.split(/[\\/]/).filter(Boolean).pop() ?? '',
    recovery,
    owner: deps.owner,
    sandbox: deps.sandbox,
  });
  const now = runClock(deps);
  const startedAt = now();
  const watchdog = startWatchdog(opts.signal, budget, startedAt, now);
  const ctx: RunContext = { deps: writingDeps(deps, log), log, ticket, ticketPath, manifest, budget, recovery, signal: watchdog.signal, startedAt, oracle };
  return drive(ctx, async () => {
    if (opts.shown) await untilShownOrAborted(opts.shown, ctx.signal);
    await emitManifest(ctx);
    const dirty = await deps.environment?.uncommitted([...manifest.scope.write.map((f) => f.path), ...manifest.testFiles], ctx.signal);
    if (dirty?.length) await log.emit({ type: 'uncommitted.detected', files: dirty });
    warmOps(ctx);
    warmParser(ctx);
    await recordBaselines(ctx);
    await stopIfToolsChanged(ctx);
    await materializeTests(ctx);
    await applyOps(ctx);
    const done = await runAttempts(ctx, 1, undefined);
    await runGates(ctx, done.attempts);
    return confirmVerdict(ctx, done);
  }).finally(() => watchdog.dispose());
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

export interface ResolveOptions {
  decision: 'accept' | 'reject';
  reason?: string;
  /** Who decided: "cli", "webview". */
  by: string;
  signal: AbortSignal;
  budget?: Budget;
  recovery?: Partial<RecoveryPolicy>;
  /**
   * The request the operator was shown. When it was decided meanwhile (a second Accept), the
   * decision is refused, even if the run now waits on another request the operator has not seen.
   */
  requestId?: string;
}

/**
 * A run's events, loaded to append to. The store's load already refuses a damaged log (a bad
 * line, events out of order: decodeLog); a last line cut short by a crash, which a view reads
 * around, is refused here too, since the next event would be glued onto it (wholeLog).
 */
async function loadToAppend(deps: PipelineDeps, runId: string) {
  return wholeLog(await deps.store.load(runId), deps.store.logPath(runId));
}

/**
 * Settles a run's pending correction request. Rejecting ends the run with the request on
 * record. Accepting writes the change into the ticket, re-derives the manifest, renders
 * the tests again, and resumes the run from its log with the Debugger's brief.
 */
export async function resolveCorrection(deps: PipelineDeps, runId: string, opts: ResolveOptions): Promise<RunResult> {
  const loaded = await loadToAppend(deps, runId);
  const state = reduceRun(runId, loaded.events);
  const pending = pendingCorrection(state);
  if (opts.requestId !== undefined && pending?.request.id !== opts.requestId) {
    throw new UserInputError(`the correction request ${opts.requestId} of run ${runId} was already decided; nothing to ${opts.decision}${pending ? `: the run now waits on request ${pending.request.id}, look at it first` : ''}`);
  }
  if (!pending) {
    throw new UserInputError(`run ${runId} has no pending correction request (its status is ${state.status}); nothing to ${opts.decision}`);
  }
  const log = openLog(deps, runId, loaded.events);
  deps = writingDeps(deps, log);
  const id = pending.request.id;
  if (opts.decision === 'reject') {
    const reason = opts.reason?.trim();
    if (!reason) throw new UserInputError('a rejection needs a reason: pass --reason "why the change is wrong"');
    await log.emit({ type: 'correction.rejected', requestId: id, reason, by: opts.by });
    await log.emit({ type: 'run.finished', outcome: 'failed', reason: { kind: 'correctionRejected', requestId: id, reason }, attempts: state.attempts.length });
    return { runId, state: reduceRun(runId, log.events), logPath: deps.store.logPath(runId) };
  }
  const ticketPath = state.ticketPath;
  const before = await deps.workspace.readFile(ticketPath);
  if (before === null) throw new UserInputError(`the ticket ${ticketPath} of run ${runId} no longer exists`);
  const after = applyProposal(before, ticketPath, pending.request.proposal);
  await log.emit({ type: 'correction.accepted', requestId: id, by: opts.by });
  await deps.workspace.writeFile(ticketPath, after);
  await log.emit({ type: 'files.written', attempt: 0, by: 'operator', files: [{ path: ticketPath, before: await log.putBlob(before), after: await log.putBlob(after) }] });
  // A gate's corrected test plan leaves the code as it was: the run resumes from the tests.
  const fromTests = raisedByGates(pending.request);
  await log.emit({ type: 'run.resumed', from: fromTests ? 'tests' : 'manifest', reason: `correction ${id} accepted (${pending.request.proposal.kind})`, owner: deps.owner });
  const budget = opts.budget ?? state.budget ?? DEFAULT_BUDGET;
  const recovery = resolveRecovery({ ...state.recovery, ...opts.recovery });
  const lastDiagnosed = [...state.attempts].reverse().find((a) => a.diagnosis);
  const next = (state.attempts[state.attempts.length - 1]?.n ?? 0) + 1;
  const now = runClock(deps);
  const startedAt = now();
  const watchdog = startWatchdog(opts.signal, budget, startedAt, now);
  return drive({ deps, log, signal: watchdog.signal }, async () => {
    const { ticket, manifest, oracle } = await loadTicket(deps, ticketPath);
    const ctx: RunContext = { deps, log, ticket, ticketPath, manifest, budget, recovery, signal: watchdog.signal, startedAt, oracle };
    await emitManifest(ctx);
    await materializeTests(ctx);
    if (fromTests) return confirmVerdict(ctx, await resumeFromTests(ctx, next - 1, 'the operator accepted a corrected test plan: the code as it was, against the new tests'));
    await applyOps(ctx);
    const done = await runAttempts(ctx, next, lastDiagnosed?.diagnosis?.brief);
    await runGates(ctx, done.attempts);
    return confirmVerdict(ctx, done);
  }).finally(() => watchdog.dispose());
}
