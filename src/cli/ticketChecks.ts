import type { TicketFinding } from '../core/stages/validateTicket';
import { validateTicket } from '../core/stages/validateTicket';
import { wireTicketChecks } from '../node/wire';
import { EXIT } from './exitCodes';
import { readTicketFile } from './ticketFile';

export const VALIDATE_HELP = `Usage: ticket-runner validate <ticket>... [--workspace DIR] [--json]

Checks tickets the way a run would, without running anything or calling a model: the
schema, every scope and test path, the refs (each must resolve), the acceptance criteria
no test names, and the rendered tests against the code as it is now. Prints one line per
finding (the ticket, the JSON path, what is wrong) and exits 0 when no ticket has an error,
3 when one has. Warnings (a rendered test that names code the ticket asks for) do not fail,
nor does information: a symbol or field the ticket names that its scope's code declares and
refs does not list, with the exact refs entry to add.`;

export const RENDER_HELP = `Usage: ticket-runner render <ticket> [--workspace DIR]

Prints the test files a run of the ticket would render from its test plan, each under a
line naming its path. Nothing is written.`;

export const LSP_HELP = `Usage: ticket-runner lsp --stdio

The ticket language server over stdin and stdout, for any editor with an LSP client: the
findings of validate as you type in .tickets/*.ticket.json (at their place in the text),
completion of scope paths, refs symbols, criterion ids and expectation kinds, hover with the
rendered test, a ref's type and a file's exports, and quick fixes. The workspace of a ticket
is the folder that holds its .tickets/ folder.`;

const line = (ticket: string, f: TicketFinding) => `${ticket}: ${f.severity} at ${f.path}: ${f.message}`;

/** `validate`: every ticket's findings; exit 3 if any ticket has an error. */
export async function validateCommand(ws: string, tickets: string[], json: boolean, out: (s: string) => void, signal: AbortSignal): Promise<number> {
  const deps = wireTicketChecks(ws);
  try {
    const results = [];
    for (const ticket of tickets) {
      const { rel, text } = readTicketFile(ws, ticket);
      const { findings } = await validateTicket(deps, rel, text, signal);
      results.push({ ticket: rel, ok: !findings.some((f) => f.severity === 'error'), findings });
    }
    if (json) out(JSON.stringify(results, null, 2));
    else for (const r of results) out(r.findings.length ? r.findings.map((f) => line(r.ticket, f)).join('\n') : `${r.ticket}: ok`);
    return results.every((r) => r.ok) ? EXIT.passed : EXIT.error;
  } finally {
    deps.diagnostics?.dispose?.();
  }
}

/** `render`: the rendered test files of one ticket, or its errors (exit 3). */
export async function renderCommand(ws: string, ticket: string, out: (s: string) => void, err: (s: string) => void, signal: AbortSignal): Promise<number> {
  // Rendering needs no type information: the language service is not started.
  const { workspace } = wireTicketChecks(ws);
  const { rel, text } = readTicketFile(ws, ticket);
  const { findings, rendered } = await validateTicket({ workspace }, rel, text, signal);
  const errors = findings.filter((f) => f.severity === 'error');
  if (errors.length || !rendered.length) {
    for (const f of errors) err(line(rel, f));
    return EXIT.error;
  }
  out(rendered.map((f) => `// ==> ${f.path} <==\n${f.content}`).join('\n'));
  return EXIT.passed;
}
