import { jsonTicketSource } from './jsonTicketSource';
import type { TicketSource } from './ticketSource';
import { yamlTicketSource } from './yamlTicketSource';

/** The ticket files the server serves, by name. */
export const TICKET_FILE = /(^|\/)\.tickets\/[^/]+\.ticket\.(json|ya?ml)$/;

/** The one place a ticket is parsed by its format; the rest of the server knows none. */
export function ticketSource(path: string, text: string): TicketSource | undefined {
  if (path.endsWith('.ticket.json')) return jsonTicketSource(text);
  if (/\.ticket\.ya?ml$/.test(path)) return yamlTicketSource(text);
  return undefined;
}
