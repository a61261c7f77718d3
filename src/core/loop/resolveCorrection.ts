import { UserInputError } from '../errors';
import { pendingCorrection, reduceRun } from '../run/reducer';
import type { Budget, RecoveryPolicy } from '../schema/events';
import type { PipelineDeps } from '../stages/common/context';
import { applyProposal } from '../stages/proposals/correctionRequests';
import { raisedByGates } from '../stages/gates';
import { loadToAppend, openLog, writingDeps } from './openRun';
import { runFrom, runLimits, type RunEntry, type RunResult } from './runFrom';

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
 * Settles a run's pending correction request. Rejecting ends the run with the request on
 * record. Accepting writes the change into the ticket and goes on from the manifest (runFrom)
 * with the Debugger's brief, or, for a gate's corrected test plan, from the tests.
 */
export async function resolveCorrection(deps: PipelineDeps, runId: string, opts: ResolveOptions): Promise<RunResult> {
  const loaded = await loadToAppend(deps, runId);
  const state = reduceRun(runId, loaded.events);
  const pending = pendingCorrection(state);
  if (opts.requestId !== undefined && pending?.request.id !== opts.requestId) {
    throw new UserInputError(
      `the correction request ${opts.requestId} of run ${runId} was already decided; nothing to ${opts.decision}${pending ? `: the run now waits on request ${pending.request.id}, look at it first` : ''}`,
    );
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
    await log.emit({
      type: 'run.finished',
      outcome: 'failed',
      reason: { kind: 'correctionRejected', requestId: id, reason },
      attempts: state.attempts.length,
    });
    return { runId, state: reduceRun(runId, log.events), logPath: deps.store.logPath(runId) };
  }
  const ticketPath = state.ticketPath;
  const before = await deps.workspace.readFile(ticketPath);
  if (before === null) throw new UserInputError(`the ticket ${ticketPath} of run ${runId} no longer exists`);
  const after = applyProposal(before, ticketPath, pending.request.proposal);
  await log.emit({ type: 'correction.accepted', requestId: id, by: opts.by });
  await deps.workspace.writeFile(ticketPath, after);
  await log.emit({
    type: 'files.written',
    attempt: 0,
    by: 'operator',
    files: [{ path: ticketPath, before: await log.putBlob(before), after: await log.putBlob(after) }],
  });
  const last = state.attempts[state.attempts.length - 1]?.n ?? 0;
  // A gate's corrected test plan leaves the code as it was: the run goes on from the tests.
  const entry: RunEntry = raisedByGates(pending.request)
    ? { from: 'tests', lastAttempt: last, why: 'the operator accepted a corrected test plan: the code as it was, against the new tests' }
    : { from: 'manifest', attempt: last + 1, brief: [...state.attempts].reverse().find((a) => a.diagnosis)?.diagnosis?.brief };
  await log.emit({
    type: 'run.resumed',
    from: entry.from,
    reason: `correction ${id} accepted (${pending.request.proposal.kind})`,
    owner: deps.owner,
  });
  return runFrom({ deps, log, ticketPath, ...runLimits(opts, state), signal: opts.signal }, entry);
}
