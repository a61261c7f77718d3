import { PlanValidationError, TicketValidationError } from '../errors';
import { Plan } from '../schema/plan';
import { readTicketData } from '../ticket/ticketFormat';
import { describeIssue, jsonPath, MAX_TICKET_BYTES } from '../ticket/ticketLoader';
import { planProblems } from './planGraph';

/**
 * Parses (JSON or YAML, by its name, as a ticket) and validates a plan file: its schema, then its
 * order (`planProblems`). Every failure is a PlanValidationError naming the file, the JSON path
 * and the fix.
 */
export function parsePlan(file: string, text: string): Plan {
  if (text.length > MAX_TICKET_BYTES)
    throw new PlanValidationError(file, [
      { path: '$', message: `too large (${text.length} characters); a plan may be at most ${MAX_TICKET_BYTES} bytes` },
    ]);
  let raw: unknown;
  try {
    raw = readTicketData(file, text);
  } catch (err) {
    if (err instanceof TicketValidationError) throw new PlanValidationError(file, err.problems);
    throw err;
  }
  const parsed = Plan.safeParse(raw);
  if (!parsed.success)
    throw new PlanValidationError(
      file,
      parsed.error.issues.map((issue) => ({ path: jsonPath(issue.path), message: describeIssue(issue, raw) })),
    );
  const problems = planProblems(parsed.data);
  if (problems.length) throw new PlanValidationError(file, problems);
  return parsed.data;
}
