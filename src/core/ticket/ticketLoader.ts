import type { z } from 'zod';
import { TicketValidationError } from '../errors';
import { Ticket } from '../schema/ticket';
import { readTicketData } from './ticketFormat';

/** Renders a zod issue path as a JSON path: $.scope.write[0]. */
export function jsonPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((acc, key) => (typeof key === 'number' ? `${acc}[${key}]` : `${acc}.${String(key)}`), '$');
}

/** The value at a zod issue path in the raw JSON; undefined where the key is absent. */
function valueAt(raw: unknown, path: readonly PropertyKey[]): unknown {
  let v = raw;
  for (const key of path) {
    if (v === null || typeof v !== 'object' || !Object.prototype.hasOwnProperty.call(v, key)) return undefined;
    v = (v as Record<PropertyKey, unknown>)[key];
  }
  return v;
}

/** The JSON type of a value, as a ticket author reads it. */
function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

/** What was expected, in words a ticket or plan author can act on. */
export function describeIssue(issue: z.core.$ZodIssue, raw: unknown): string {
  if (issue.code === 'invalid_type') {
    // zod does not keep the input on the issue: read it from the JSON, so a wrong type is not called missing.
    const got = valueAt(raw, issue.path);
    return got === undefined ? `missing; expected ${issue.expected}` : `expected ${issue.expected}, got ${jsonType(got)}`;
  }
  if (issue.code === 'unrecognized_keys')
    return `unknown key${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `"${k}"`).join(', ')}`;
  if (issue.code === 'invalid_union') return `${issue.message}; see the JSON Schema for the allowed shapes`;
  return issue.message;
}

/** A ticket is a page of JSON or YAML: past this, it is a mistake (a log, a dump), and copying it into every prompt and the log would be costly. */
export const MAX_TICKET_BYTES = 1024 * 1024;

/**
 * Parses (in the format its name says) and validates a ticket file. Every failure is a TicketValidationError naming
 * the file, the JSON path and what was expected: never a stack trace.
 */
export function parseTicket(file: string, text: string): Ticket {
  if (text.length > MAX_TICKET_BYTES) {
    throw new TicketValidationError(file, [
      { path: '$', message: `too large (${text.length} characters); a ticket may be at most ${MAX_TICKET_BYTES} bytes` },
    ]);
  }
  const raw = readTicketData(file, text);
  const parsed = Ticket.safeParse(raw);
  if (!parsed.success) {
    throw new TicketValidationError(
      file,
      parsed.error.issues.map((issue) => ({ path: jsonPath(issue.path), message: describeIssue(issue, raw) })),
    );
  }
  return parsed.data;
}
