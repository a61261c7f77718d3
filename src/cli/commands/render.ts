import { UserInputError } from '../../core/errors';
import { validateTicket } from '../../core/stages/authoring/validateTicket';
import { wireTicketChecks } from '../../node/wire';
import { defineCommand } from '../command';
import { EXIT } from '../exitCodes';
import { readTicketFile } from '../../node/tickets/ticketFile';
import { workspaceOf } from '../workspaceOf';
import { findingLine, heldOutLine } from './validate';

/** `render`: the rendered test files of one ticket, or its errors (exit 3). */
export const renderCommand = defineCommand({
  name: 'render',
  synopsis: 'render <ticket>',
  summary: 'print the tests a run of the ticket would render',
  help: `Usage: ticket-runner render <ticket> [--workspace DIR]

Prints the test files a run of the ticket would render from its test plan, each under a
line naming its path, the held-out cases' files last (the Coder never sees them; each held-out
case is also named on stderr). Nothing is written.`,
  options: {},
  async run({ flags, positionals, io, signal }) {
    if (positionals.length !== 1) throw new UserInputError('render needs one ticket path, such as .tickets/BLOG-1.ticket.json');
    const ws = workspaceOf(flags);
    // Rendering needs no type information: the language service is not started.
    const { workspace } = wireTicketChecks(ws);
    const { rel, text } = readTicketFile(ws, positionals[0]!);
    const { findings, rendered, heldOut, renderedHeldOut } = await validateTicket({ workspace }, rel, text, signal);
    const errors = findings.filter((f) => f.severity === 'error');
    if (errors.length || !rendered.length) {
      for (const f of errors) io.err(findingLine(rel, f));
      return EXIT.error;
    }
    io.out(
      [
        ...rendered.map((f) => `// ==> ${f.path} <==\n${f.content}`),
        ...renderedHeldOut.map(
          (f) => `// ==> ${f.path} <== held out: on disk only while a command judges with it; the Coder never sees it\n${f.content}`,
        ),
      ].join('\n'),
    );
    for (const c of heldOut) io.err(heldOutLine(rel, c));
    return EXIT.passed;
  },
});
