import { UserInputError } from '../errors';
import type { Budget, PlanLink, RecoveryPolicy } from '../schema/events';
import type { PipelineDeps } from '../stages/common/context';
import { normalizeRelPath } from '../schema/paths';
import { openLog, writingDeps } from './openRun';
import { runFrom, runLimits, type RunResult } from './runFrom';
import { loadTicket } from './runSteps';

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
  /** The plan's run this ticket's run is part of (planRunner.ts). */
  plan?: PlanLink;
}

/**
 * Takes a ticket through the pipeline from its start (runFrom). A malformed ticket or a bad
 * path throws a UserInputError before any run exists.
 */
export async function startRun(deps: PipelineDeps, opts: RunOptions): Promise<RunResult> {
  const ticketPath = normalizeRelPath(opts.ticketPath);
  const loaded = await loadTicket(deps, ticketPath);
  // Said once, before any run exists, instead of a missing-module error on every attempt.
  const missing = await deps.environment?.dependencyProblem();
  if (missing) throw new UserInputError(missing);
  const { budget, recovery } = runLimits(opts);
  const log = openLog(deps, deps.clock.newRunId());
  await log.emit({
    type: 'run.started',
    ticketId: loaded.ticket.id,
    ticketPath,
    model: deps.model.info,
    budget,
    workspace: deps.workspaceRoot.split(/[\\/]/).filter(Boolean).pop() ?? '',
    recovery,
    owner: deps.owner,
    sandbox: deps.sandbox,
    ...(opts.plan ? { plan: opts.plan } : {}),
  });
  return runFrom(
    { deps: writingDeps(deps, log), log, ticketPath, budget, recovery, signal: opts.signal, loaded },
    { from: 'manifest', attempt: 1, baselines: { findings: true, projectTests: true }, first: { shown: opts.shown } },
  );
}
