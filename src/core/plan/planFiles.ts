import { Document, isScalar, isSeq, visit } from 'yaml';
import type { PlanTicket } from '../schema/plan';
import { isTicketFileName, ticketBaseName } from '../ticket/ticketFormat';

/** The file names a plan may have, the JSON form first, as a ticket's. */
export const PLAN_SUFFIXES = ['.plan.json', '.plan.yaml', '.plan.yml'] as const;

export function isPlanFileName(name: string): boolean {
  return PLAN_SUFFIXES.some((s) => name.endsWith(s));
}

/**
 * The id a plan's entry goes by in `after`: the entry itself when it names a ticket by id, the
 * file's name without its ticket suffix when it is a path (a ticket's id names its file).
 */
export function planTicketId(entry: Pick<PlanTicket, 'ticket'>): string {
  const ref = entry.ticket;
  return ref.includes('/') || isTicketFileName(ref) ? ticketBaseName(ref) : ref;
}

/** A plan's value as the text of its file: YAML with a comment on how it is read, or two-space JSON. */
export function planText(plan: object, format: 'json' | 'yaml'): string {
  if (format === 'json') return `${JSON.stringify(plan, null, 2)}\n`;
  const doc = new Document(plan);
  doc.commentBefore =
    ' A Ticket Runner plan: each ticket runs after the tickets its after lists.\n' +
    ' source.notes says what the import of the task list left out, and why.';
  // One line per entry's after ([RL-1, RL-2]), as a person writes it.
  visit(doc, {
    Pair(_key, pair) {
      if (isScalar(pair.key) && pair.key.value === 'after' && isSeq(pair.value)) pair.value.flow = true;
    },
  });
  return doc.toString({ lineWidth: 0, flowCollectionPadding: false });
}
