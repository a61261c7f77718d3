import { findTickets } from '../batch/tickets';
import { defineCommand } from '../command';
import { EXIT } from '../exitCodes';
import { workspaceOf } from '../workspaceOf';

export const ticketsCommand = defineCommand({
  name: 'tickets',
  synopsis: 'tickets <dir-or-pattern>...',
  summary: 'the tickets a batch would run, as a JSON list (a CI matrix)',
  help: `Usage: ticket-runner tickets <dir-or-pattern>... [--workspace DIR]

Prints the tickets a batch of these would run, as one JSON list of workspace-relative paths:
the matrix of a CI job that runs one ticket per machine.`,
  options: {},
  async run({ flags, positionals, io }) {
    io.out(JSON.stringify(findTickets(workspaceOf(flags), positionals)));
    return EXIT.passed;
  },
});
