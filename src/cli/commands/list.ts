import { displayStatus } from '../../core/run/liveness';
import { describeStop, modelLabel } from '../../core/run/views/report';
import { ownerProbe } from '../../node/store/workspaceLock';
import { defineCommand } from '../command';
import { EXIT } from '../exitCodes';
import { loadWorkspaceRuns } from '../workspaceRuns';
import { workspaceOf } from '../workspaceOf';

export const listCommand = defineCommand({
  name: 'list',
  synopsis: 'list',
  summary: 'the runs of the workspace',
  help: `Usage: ticket-runner list [--workspace DIR] [--json]`,
  options: {},
  async run({ flags, io }) {
    const ws = workspaceOf(flags);
    const rows = await loadWorkspaceRuns(ws, io.err);
    const alive = ownerProbe(ws);
    const shown = rows.map((s) => ({ s, status: displayStatus(s, alive) }));
    if (flags.json)
      io.out(
        JSON.stringify(
          shown.map(({ s, status }) => ({ runId: s.runId, ticketId: s.ticketId, status, attempts: s.attempts.length, model: s.model })),
          null,
          2,
        ),
      );
    else if (!rows.length) io.out('No runs yet. Start one with: ticket-runner run .tickets/<ID>.ticket.json');
    else {
      for (const { s, status } of shown) {
        const why = s.finished
          ? describeStop(s.finished.reason)
          : status === 'interrupted'
            ? `its process is gone: ticket-runner resume ${s.runId}`
            : '';
        io.out(`${s.runId}  ${s.ticketId.padEnd(10)} ${status.padEnd(13)} ${s.attempts.length} attempt(s)  ${why}  [${modelLabel(s)}]`);
      }
    }
    return EXIT.passed;
  },
});
