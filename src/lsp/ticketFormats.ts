import { jsonTicketSource } from './jsonTicketSource';
import type { TicketSource } from './ticketSource';

/** The ticket files the server serves, by name. */
export const TICKET_FILE = /(^|\/)\.tickets\/[^/]+\.ticket\.json$/;

/**
 * The one place a ticket is parsed by its format. A `.ticket.yaml` source plugs in here, beside
 * the JSON one, with its own range finder; the rest of the server does not change.
 */
export function ticketSource(path: string, text: string): TicketSource | undefined {
  if (path.endsWith('.ticket.json')) return jsonTicketSource(text);
  return undefined;
}
