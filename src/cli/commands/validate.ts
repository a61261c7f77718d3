import { PlanValidationError, UserInputError } from '../../core/errors';
import { isPlanFileName } from '../../core/plan/planFiles';
import type { TicketFinding } from '../../core/stages/authoring/validateTicket';
import type { HeldOutCase } from '../../core/stages/manifest/heldOut';
import { validateTicket } from '../../core/stages/authoring/validateTicket';
import { wireTicketChecks } from '../../node/wire';
import { defineCommand } from '../command';
import { EXIT } from '../exitCodes';
import { readTicketFile } from '../../node/tickets/ticketFile';
import { workspaceOf } from '../workspaceOf';
import { loadPlan } from '../../node/plans/loadPlan';

/** A plan's findings: its schema and order, and each ticket it names (there, and a ticket). */
function planFindings(ws: string, file: string): TicketFinding[] {
  try {
    loadPlan(ws, file);
    return [];
  } catch (err) {
    // A ticket's own errors name the ticket's file in the message; the plan's are at their path in the plan.
    if (err instanceof PlanValidationError) return err.problems.map((p) => ({ severity: 'error', path: p.path, message: p.message }));
    if (err instanceof UserInputError) return [{ severity: 'error', path: '$', message: err.message }];
    throw err;
  }
}

/** One finding as `validate` and `render` print it. */
export const findingLine = (ticket: string, f: TicketFinding) => `${ticket}: ${f.severity} at ${f.path}: ${f.message}`;

/** One held-out case as `validate` and `render` print it: which, where, and why. */
export const heldOutLine = (ticket: string, c: HeldOutCase) =>
  `${ticket}: held out at ${c.path}: "${c.name}" (${c.why === 'holdout' ? 'it says "holdout": true' : 'the last case of its criterion'}), rendered to ${c.file}; the Coder never sees it`;

/** `validate`: every ticket's findings; exit 3 if any ticket has an error. */
export const validateCommand = defineCommand({
  name: 'validate',
  synopsis: 'validate <ticket|plan>...',
  summary: 'check tickets as a run would, with no run and no model',
  help: `Usage: ticket-runner validate <ticket>... [--workspace DIR] [--json]

Checks tickets the way a run would, without running anything or calling a model: the
schema, every scope and test path, the refs (each must resolve), the acceptance criteria
no test names, and the rendered tests against the code as it is now. Prints one line per
finding (the ticket, the JSON path, what is wrong) and exits 0 when no ticket has an error,
3 when one has. Warnings (a rendered test that names code the ticket asks for) do not fail,
nor does information: a symbol or field the ticket names that its scope's code declares and
refs does not list, with the exact refs entry to add. Then one line per held-out case (the
cases the Coder never sees: docs/tickets.md says which), with --json as "heldOut".
A plan file (.plan.yaml, .plan.json) is checked as a plan: its schema, its order (no cycle, no
unknown or repeated ticket), and each ticket it names (there, and a valid ticket file).`,
  options: {},
  async run({ flags, positionals, io, signal }) {
    if (!positionals.length) throw new UserInputError('validate needs one or more ticket paths, such as .tickets/BLOG-1.ticket.json');
    const ws = workspaceOf(flags);
    const deps = wireTicketChecks(ws);
    try {
      const results = [];
      for (const ticket of positionals) {
        if (isPlanFileName(ticket)) {
          const rel = readTicketFile(ws, ticket).rel;
          const findings = planFindings(ws, rel);
          results.push({ ticket: rel, ok: !findings.length, findings, heldOut: [] });
          continue;
        }
        const { rel, text } = readTicketFile(ws, ticket);
        const { findings, heldOut } = await validateTicket(deps, rel, text, signal);
        results.push({ ticket: rel, ok: !findings.some((f) => f.severity === 'error'), findings, heldOut });
      }
      if (flags.json) io.out(JSON.stringify(results, null, 2));
      else {
        for (const r of results) {
          io.out(r.findings.length ? r.findings.map((f) => findingLine(r.ticket, f)).join('\n') : `${r.ticket}: ok`);
          for (const c of r.heldOut) io.out(heldOutLine(r.ticket, c));
        }
      }
      return results.every((r) => r.ok) ? EXIT.passed : EXIT.error;
    } finally {
      deps.diagnostics?.dispose?.();
    }
  },
});
