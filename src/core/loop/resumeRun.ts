import { UserInputError } from '../errors';
import { wholeLog } from '../run/logCodec';
import { applyEvent, emptyRunState, reduceRun } from '../run/reducer';
import type { RunEvent } from '../schema/events';
import type { Budget, JudgingToolFile, RecoveryPolicy } from '../schema/events';
import { resolveRecovery } from '../recovery/policy';
import { startWatchdog } from '../recovery/budgets';
import { DEFAULT_BUDGET, type PipelineDeps, type RunContext } from '../stages/common/context';
import { runGates } from '../stages/gates';
import { resumeFromTests } from './resumeFromTests';
import { clearInterruptedWrites } from './interruptedWrites';
import { runAttempts } from './innerLoop';
import { applyOps } from '../stages/ops/applyOps';
import { recordBaselines } from '../stages/checks/baselines';
import { confirmVerdict, drive, emitManifest, loadTicket, materializeTests, openLog, runClock, writingDeps, type RunResult } from './runTicket';

export interface ResumeOptions {
  signal: AbortSignal;
  /** Why it is resumed, for the log ("interrupted: its process 123 is gone"). */
  reason: string;
  budget?: Budget;
  recovery?: Partial<RecoveryPolicy>;
}

/** The steps whose end is recorded: a resumed run keeps what they did and starts after the last one. */
export interface Cut {
  /** Events before this index stand; the writes after it are put back. */
  index: number;
  /** The last attempt that ended (0: none), and whether it passed (the gates were running). */
  lastDone: number;
  passed: boolean;
}

/** Where a resumed run starts again: after the last step whose end its log records. */
export function cutOf(runId: string, events: readonly RunEvent[]): Cut {
  const state = emptyRunState(runId);
  const cut: Cut = { index: 1, lastDone: 0, passed: false };
  events.forEach((e, i) => {
    applyEvent(state, e);
    const ended =
      (e.type === 'router.routed' || (e.type === 'tests.ran' && state.attempts.find((a) => a.n === e.attempt)?.status === 'passed')) && e.attempt > 0;
    if (ended) Object.assign(cut, { index: i + 1, lastDone: e.attempt, passed: e.type === 'tests.ran' });
    else if (cut.lastDone === 0 && (e.type === 'tests.materialized' || e.type === 'op.applied' || e.type === 'ops.checked')) cut.index = i + 1;
  });
  return cut;
}

/**
 * Continues a run that was interrupted (its process died) or cancelled, from its log. What
 * ended stands: the rendered tests, the applied ops, every attempt that reached its verdict.
 * The step that was cut short is done again from a clean start: the files written since the
 * last ended step are put back (recorded as `files.written` by 'resume'), and the run goes on
 * as it would have: the next attempt with the last diagnosis's brief, or the gates after an
 * attempt that passed. The model calls of the step cut short are made again.
 */
export async function resumeRun(deps: PipelineDeps, runId: string, opts: ResumeOptions): Promise<RunResult> {
  const events = wholeLog(await deps.store.load(runId), deps.store.logPath(runId)).events;
  const state = reduceRun(runId, events);
  if (state.status === 'needsOperator') {
    throw new UserInputError(`run ${runId} waits for the operator: settle it with ticket-runner resolve ${runId} accept|reject`, `run ${runId} waits for your decision: accept or reject its correction in the run view (or Ticket Runner: Accept Correction Request)`);
  }
  const toolsChanged = state.finished?.reason.kind === 'judgingToolsChanged' ? state.finished.reason : undefined;
  if (toolsChanged) await refuseOnChangedTools(deps, runId, toolsChanged.files);
  else if (state.status !== 'running' && state.status !== 'cancelled') throw new UserInputError(`run ${runId} ended (${state.status}); only an interrupted or cancelled run can be resumed`);
  const cut = cutOf(runId, events);
  if (events.slice(cut.index).some((e) => e.type === 'correction.accepted' || (e.type === 'run.resumed' && e.attempt === undefined))) {
    const why = `run ${runId} was interrupted after an accepted correction, before an attempt ended: it cannot be resumed`;
    throw new UserInputError(`${why}; roll it back (ticket-runner rollback ${runId}) and run the ticket again`, `${why}; roll it back (Ticket Runner: Roll Back Run) and run the ticket again`);
  }
  const log = openLog(deps, runId, events);
  const wdeps = writingDeps(deps, log);

  const from = cut.passed ? 'tests' : cut.lastDone > 0 ? 'coder' : 'manifest';
  await log.emit({ type: 'run.resumed', from, reason: opts.reason, attempt: cut.passed ? cut.lastDone : cut.lastDone + 1, owner: deps.owner });
  await clearInterruptedWrites(deps.workspace, events);
  await putBack(wdeps, log, events.slice(cut.index));

  const budget = opts.budget ?? state.budget ?? DEFAULT_BUDGET;
  const recovery = resolveRecovery({ ...state.recovery, ...opts.recovery });
  const brief = [...state.attempts].reverse().find((a) => a.n <= cut.lastDone && a.diagnosis)?.diagnosis?.brief;
  const now = runClock(deps);
  const startedAt = now();
  const watchdog = startWatchdog(opts.signal, budget, startedAt, now);
  return drive({ deps: wdeps, log, signal: watchdog.signal }, async () => {
    const { ticket, manifest, oracle } = await loadTicket(wdeps, state.ticketPath);
    const ctx: RunContext = { deps: wdeps, log, ticket, ticketPath: state.ticketPath, manifest, budget, recovery, signal: watchdog.signal, startedAt, oracle };
    await emitManifest(ctx);
    // Cut short before the first write: the workspace is as it was, so the baselines the run lacks are still true.
    if (!events.slice(0, cut.index).some((e) => e.type === 'tests.materialized')) {
      await recordBaselines(ctx, { findings: !events.some((e) => e.type === 'baseline.recorded'), projectTests: !events.some((e) => e.type === 'projectTests.baseline') });
    }
    await materializeTests(ctx);
    await applyOps(ctx);
    if (cut.passed) return confirmVerdict(ctx, await resumeFromTests(ctx, cut.lastDone, 'the run was resumed after its last attempt passed: the tests again, before the gates'));
    const done = await runAttempts(ctx, cut.lastDone + 1, brief);
    await runGates(ctx, done.attempts);
    return confirmVerdict(ctx, done);
  }).finally(() => watchdog.dispose());
}

/**
 * A run stopped on a changed test runner goes on only once every file it named is as the run
 * recorded it (reinstalled): checked by hash, in this process, before anything runs.
 */
async function refuseOnChangedTools(deps: PipelineDeps, runId: string, files: readonly JudgingToolFile[]): Promise<void> {
  const still = deps.tests.stillChangedTools ? await deps.tests.stillChangedTools(files) : files;
  if (!still.length) return;
  const list = still.map((f) => `${f.change} ${f.path}`).join(', ');
  throw new UserInputError(`run ${runId} stopped because the test runner was changed by the code under test, and it still is: ${list}. Reinstall (npm ci), then resume it again`);
}

/** Puts back every file written after the cut as it was at the cut, and records the writes. */
async function putBack(deps: PipelineDeps, log: ReturnType<typeof openLog>, after: readonly RunEvent[]): Promise<void> {
  const target = new Map<string, string | null>();
  for (const e of after) if (e.type === 'files.written') for (const f of e.files) if (!target.has(f.path)) target.set(f.path, f.before);
  const files = [];
  for (const [path, before] of [...target].sort(([a], [b]) => a.localeCompare(b))) {
    const current = await deps.workspace.readFile(path);
    const currentHash = current === null ? null : deps.hash(current);
    if (currentHash === before) continue;
    // A file first written after the cut did not exist before the run: rollback deletes it anyway.
    if (before === null) {
      await deps.workspace.deleteFile(path);
      continue;
    }
    await deps.workspace.writeFile(path, await log.getBlob(before));
    files.push({ path, before: current === null ? null : await log.putBlob(current), after: before });
  }
  if (files.length) await log.emit({ type: 'files.written', attempt: 0, by: 'resume', files });
}
