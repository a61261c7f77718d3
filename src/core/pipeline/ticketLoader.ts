import type { z } from 'zod';
import { TicketValidationError } from '../errors';
import { Ticket } from '../schema/ticket';

/** Renders a zod issue path as a JSON path: $.scope.write[0]. */
export function jsonPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((acc, key) => (typeof key === 'number' ? `${acc}[${key}]` : `${acc}.${String(key)}`), '$');
}

/** What was expected, in words a ticket author can act on. */
function describeIssue(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_type') {
    const got = (issue as { input?: unknown }).input;
    return got === undefined ? `missing; expected ${issue.expected}` : `expected ${issue.expected}, got ${JSON.stringify(got)}`;
  }
  if (issue.code === 'unrecognized_keys') return `unknown key${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `"${k}"`).join(', ')}`;
  if (issue.code === 'invalid_union') return `${issue.message}; see the JSON Schema for the allowed shapes`;
  return issue.message;
}

/** 1-based line and column of a character offset, for JSON syntax errors. */
function position(text: string, offset: number): string {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return `line ${line}, column ${offset - before.lastIndexOf('\n')}`;
}

/**
 * Parses and validates a ticket file. Every failure is a TicketValidationError naming
 * the file, the JSON path and what was expected: never a stack trace.
 */
export function parseTicket(file: string, text: string): Ticket {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    const msg = err instanceof Error ? err.message : String(err);
    const at = /position (\d+)/.exec(msg);
    const where = at?.[1] !== undefined ? ` (${position(text, Number(at[1]))})` : '';
    throw new TicketValidationError(file, [{ path: '$', message: `not valid JSON${where}: ${msg}` }]);
  }
  const parsed = Ticket.safeParse(raw);
  if (!parsed.success) {
    throw new TicketValidationError(
      file,
      parsed.error.issues.map((issue) => ({ path: jsonPath(issue.path), message: describeIssue(issue) })),
    );
  }
  return parsed.data;
}
