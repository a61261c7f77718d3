import { UserInputError } from '../errors';
import { applyEvent, emptyRunState, reduceRun } from '../run/reducer';
import type { Budget, JudgingToolFile, RecoveryPolicy, RunEvent } from '../schema/events';
import type { RunLog } from '../run/runLog';
import type { PipelineDeps } from '../stages/common/context';
import type { BaselinesNeeded } from '../stages/checks/baselines';
import { clearInterruptedWrites } from './interruptedWrites';
import { loadToAppend, openLog, writingDeps } from './openRun';
import { runFrom, runLimits, type RunEntry, type RunResult } from './runFrom';

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
      (e.type === 'router.routed' || (e.type === 'tests.ran' && state.attempts.find((a) => a.n === e.attempt)?.status === 'passed')) &&
      e.attempt > 0;
    if (ended) Object.assign(cut, { index: i + 1, lastDone: e.attempt, passed: e.type === 'tests.ran' });
    else if (cut.lastDone === 0 && (e.type === 'tests.materialized' || e.type === 'op.applied' || e.type === 'ops.checked'))
      cut.index = i + 1;
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
  const { events } = await loadToAppend(deps, runId);
  const state = reduceRun(runId, events);
  if (state.status === 'needsOperator') {
    throw new UserInputError(
      `run ${runId} waits for the operator: settle it with ticket-runner resolve ${runId} accept|reject`,
      `run ${runId} waits for your decision: accept or reject its correction in the run view (or Ticket Runner: Accept Correction Request)`,
    );
  }
  const toolsChanged = state.finished?.reason.kind === 'judgingToolsChanged' ? state.finished.reason : undefined;
  if (toolsChanged) await refuseOnChangedTools(deps, runId, toolsChanged.files);
  else if (state.status !== 'running' && state.status !== 'cancelled')
    throw new UserInputError(`run ${runId} ended (${state.status}); only an interrupted or cancelled run can be resumed`);
  const cut = cutOf(runId, events);
  if (events.slice(cut.index).some((e) => e.type === 'correction.accepted' || (e.type === 'run.resumed' && e.attempt === undefined))) {
    const why = `run ${runId} was interrupted after an accepted correction, before an attempt ended: it cannot be resumed`;
    throw new UserInputError(
      `${why}; roll it back (ticket-runner rollback ${runId}) and run the ticket again`,
      `${why}; roll it back (Ticket Runner: Roll Back Run) and run the ticket again`,
    );
  }
  const log = openLog(deps, runId, events);
  const wdeps = writingDeps(deps, log);
  const brief = [...state.attempts].reverse().find((a) => a.n <= cut.lastDone && a.diagnosis)?.diagnosis?.brief;
  const entry: RunEntry = {
    ...(cut.passed
      ? {
          from: 'tests',
          lastAttempt: cut.lastDone,
          why: 'the run was resumed after its last attempt passed: the tests again, before the gates',
        }
      : { from: cut.lastDone > 0 ? 'coder' : 'manifest', attempt: cut.lastDone + 1, brief }),
    baselines: missingBaselines(events, cut),
  };
  await log.emit({
    type: 'run.resumed',
    from: entry.from,
    reason: opts.reason,
    attempt: cut.passed ? cut.lastDone : cut.lastDone + 1,
    owner: deps.owner,
  });
  await clearInterruptedWrites(deps.workspace, events);
  await putBack(wdeps, log, events.slice(cut.index));
  return runFrom({ deps: wdeps, log, ticketPath: state.ticketPath, ...runLimits(opts, state), signal: opts.signal }, entry);
}

/**
 * The baselines a run cut short before its first write still lacks: the workspace is as it was
 * then, so they are still true to measure. After the first write there are none to take.
 */
function missingBaselines(events: readonly RunEvent[], cut: Cut): BaselinesNeeded | undefined {
  if (events.slice(0, cut.index).some((e) => e.type === 'tests.materialized')) return undefined;
  const needed = {
    findings: !events.some((e) => e.type === 'baseline.recorded'),
    projectTests: !events.some((e) => e.type === 'projectTests.baseline'),
  };
  return needed.findings || needed.projectTests ? needed : undefined;
}

/**
 * A run stopped on a changed test runner goes on only once every file it named is as the run
 * recorded it (reinstalled): checked by hash, in this process, before anything runs.
 */
async function refuseOnChangedTools(deps: PipelineDeps, runId: string, files: readonly JudgingToolFile[]): Promise<void> {
  const still = deps.tests.stillChangedTools ? await deps.tests.stillChangedTools(files) : files;
  if (!still.length) return;
  const list = still.map((f) => `${f.change} ${f.path}`).join(', ');
  throw new UserInputError(
    `run ${runId} stopped because the test runner was changed by the code under test, and it still is: ${list}. Reinstall (npm ci), then resume it again`,
  );
}

/** Puts back every file written after the cut as it was at the cut, and records the writes. */
async function putBack(deps: PipelineDeps, log: RunLog, after: readonly RunEvent[]): Promise<void> {
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
