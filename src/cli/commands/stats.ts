import { formatRunStats, runStats } from '../../core/run/views/stats';
import { defineCommand } from '../command';
import { EXIT } from '../exitCodes';
import { loadWorkspaceRuns } from '../workspaceRuns';
import { workspaceOf } from '../workspaceOf';

export const statsCommand = defineCommand({
  name: 'stats',
  synopsis: 'stats',
  summary: "figures over the workspace's runs: pass rate, routes, vetoes, rungs, cost",
  help: `Usage: ticket-runner stats [--workspace DIR] [--json]

Figures over every run of the workspace (.ticket-runner/runs): runs and the pass rate, the
routes the fixes took and the guard's vetoes (the Debugger's claims a check overruled), the
recovery rungs fired, the corrections requested, accepted and rejected, the median attempts,
and the model calls, tokens and cost per ticket.

  --json   the same figures as one JSON object (runs, outcomes, passRate, routes, guard,
           vetoes, rungs, corrections, attempts, usage, perTicket, byTicket)`,
  options: {},
  async run({ flags, io }) {
    const stats = runStats(await loadWorkspaceRuns(workspaceOf(flags), io.err));
    io.out(flags.json ? JSON.stringify(stats, null, 2) : formatRunStats(stats));
    return EXIT.passed;
  },
});
