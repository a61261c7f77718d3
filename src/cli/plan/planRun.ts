import { planRollback, resumeRun, rollbackRun, startRun } from '../../core';
import { planProgress, type PlanProgress } from '../../core/plan/planProgress';
import { formatPlanReport } from '../../core/plan/planReport';
import { runPlan, type PlanRunPorts } from '../../core/plan/planRunner';
import { keepOnBranch, openPlanBranch } from '../../node/plans/planBranch';
import { ownerProbe } from '../../node/store/workspaceLock';
import type { WireOptions } from '../../node/wire';
import { wiredSettings } from '../../node/wiredSettings';
import type { Io } from '../command';
import { EXIT } from '../exitCodes';
import { openRun, progressTo } from '../openRun';
import type { RunSettings } from '../../core/loop/runSettings';
import type { ModelChoice } from '../../node/wire';
import { loadWorkspaceRuns } from '../workspaceRuns';
import { loadPlan } from '../../node/plans/loadPlan';

export interface PlanRunInput {
  ws: string;
  file: string;
  resume: boolean;
  model: ModelChoice;
  settings: RunSettings;
  /** Commit each passed ticket on the plan's branch (when the workspace is in git). */
  commit: boolean;
  json: boolean;
  argv: readonly string[];
  io: Io;
  signal: AbortSignal;
}

/** The exit code of a plan: 0 when every ticket passed, 2 when one waits for the operator, 1 otherwise. */
function planExit(p: PlanProgress, signal: AbortSignal): number {
  if (signal.aborted) return EXIT.cancelled;
  if (p.verdict === 'passed') return EXIT.passed;
  return p.tickets.some((t) => t.state === 'waiting') ? EXIT.needsOperator : EXIT.failed;
}

/** The plan's report on stdout: its text, or with --json the plan's progress. */
function printPlan(io: Io, json: boolean, file: string, p: PlanProgress): void {
  io.out(json ? JSON.stringify({ plan: file, ...p }, null, 2) : formatPlanReport(p, file));
}

/** `plan run` and `plan resume`: the plan's tickets one after another, each a run as `run` makes it. */
export async function planRun(o: PlanRunInput): Promise<number> {
  const loaded = loadPlan(o.ws, o.file);
  const say = (line: string) => o.io.err(`plan: ${line}`);
  const warn = (m: string) => o.io.err(m);
  // The branch is opened once the plan is known to be runnable, so a refused start leaves git as it was.
  let branch: ReturnType<typeof openPlanBranch> | undefined;
  const wire = (ticketPath: string, model: WireOptions['model'] = o.model): WireOptions => ({
    workspaceRoot: o.ws,
    model,
    ticketPath,
    env: process.env,
    onEvent: progressTo(o.io),
    ...wiredSettings(o.settings),
  });
  const ioFor = { argv: o.argv, io: o.io };
  const ports: PlanRunPorts = {
    runs: () => loadWorkspaceRuns(o.ws, warn),
    alive: ownerProbe(o.ws),
    newRound: () => new Date().toISOString(),
    runTicket: (t, link, signal) =>
      openRun(ioFor, wire(loaded.tickets.get(t.id)!.file), async (deps) => {
        branch ??= o.commit ? openPlanBranch(o.ws, loaded.plan.id, say) : null;
        const result = await startRun(deps, {
          ticketPath: loaded.tickets.get(t.id)!.file,
          budget: o.settings.budget,
          recovery: o.settings.recovery,
          signal,
          plan: link,
        });
        return result.state;
      }),
    resumeTicket: async (runId, signal) => {
      const runs = await loadWorkspaceRuns(o.ws, warn);
      const state = runs.find((r) => r.runId === runId)!;
      return openRun(ioFor, { ...wire(state.ticketPath), continuesRun: runId }, async (deps) => {
        branch ??= o.commit ? openPlanBranch(o.ws, loaded.plan.id, say) : null;
        const result = await resumeRun(deps, runId, {
          reason: 'interrupted: resumed with its plan',
          signal,
          recovery: o.settings.recovery,
        });
        return result.state;
      });
    },
    rollBack: async (runId) => {
      const runs = await loadWorkspaceRuns(o.ws, warn);
      const state = runs.find((r) => r.runId === runId)!;
      await openRun(ioFor, wire(state.ticketPath, 'none'), (deps) => rollbackRun(deps, runId));
      say(`${state.ticketId}'s last run is rolled back: it runs again from the code before it`);
    },
    keep: async (t, run) => {
      if (!branch) return undefined;
      const files = await openRun(ioFor, wire(run.ticketPath, 'none'), async (deps) =>
        (await planRollback(deps, run.runId)).steps.map((s) => s.path),
      );
      return keepOnBranch(branch, files, {
        planId: loaded.plan.id,
        ticketId: t.id,
        title: loaded.tickets.get(t.id)!.title,
        runId: run.runId,
        uncommitted: run.uncommitted,
      });
    },
    say,
  };
  const progress = await runPlan(ports, { plan: loaded.plan, file: loaded.file, resume: o.resume, signal: o.signal });
  printPlan(o.io, o.json, loaded.file, progress);
  return planExit(progress, o.signal);
}

/** `plan show`: the plan's report from its tickets' runs; nothing runs. */
export async function planShow(o: Pick<PlanRunInput, 'ws' | 'file' | 'json' | 'io'>): Promise<number> {
  const loaded = loadPlan(o.ws, o.file);
  const runs = await loadWorkspaceRuns(o.ws, (m) => o.io.err(m));
  printPlan(o.io, o.json, loaded.file, planProgress(loaded.plan, loaded.file, runs, ownerProbe(o.ws)));
  return EXIT.passed;
}
