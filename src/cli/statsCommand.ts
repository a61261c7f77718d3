import { formatRunStats, runStats } from '../core/run/views/stats';
import { loadWorkspaceRuns } from './workspaceRuns';

export const STATS_HELP = `Usage: ticket-runner stats [--workspace DIR] [--json]

Figures over every run of the workspace (.ticket-runner/runs): runs and the pass rate, the
routes the fixes took and the guard's vetoes (the Debugger's claims a check overruled), the
recovery rungs fired, the corrections requested, accepted and rejected, the median attempts,
and the model calls, tokens and cost per ticket.

  --json   the same figures as one JSON object (runs, outcomes, passRate, routes, guard,
           vetoes, rungs, corrections, attempts, usage, perTicket, byTicket)`;

export async function statsCommand(ws: string, json: boolean, out: (s: string) => void, err: (s: string) => void): Promise<void> {
  const stats = runStats(await loadWorkspaceRuns(ws, err));
  out(json ? JSON.stringify(stats, null, 2) : formatRunStats(stats));
}
