/**
 * Which ticket Run Ticket takes when it is given none: the one the user is looking at. Pure (no
 * editor API), so it is tested without an editor; Run Ticket (commands/ticketPick.ts) passes the editor's paths in.
 */

/** A ticket file: `.tickets/<ID>.ticket.json`, `.ticket.yaml` or `.ticket.yml`. */
export const TICKET_PATH = /(^|\/)\.tickets\/[^/]+\.ticket\.(json|ya?ml)$/;

export type TicketChoice = { run: string } | { pick: true; first?: string };

/**
 * `active`: the path of the active editor's file; `open`: the paths of the other open editors, the
 * most recent first. A ticket in the active editor is run as it is; else the list is shown, with
 * an open ticket first (the pick's first item is the one Enter takes).
 */
export function ticketChoice(active: string | undefined, open: readonly string[]): TicketChoice {
  if (active && TICKET_PATH.test(active)) return { run: active };
  const first = open.find((p) => TICKET_PATH.test(p));
  return first ? { pick: true, first } : { pick: true };
}

/** The pick's items with the open ticket first, the others in their order. */
export function openFirst<T extends { path: string }>(items: readonly T[], first: string | undefined): T[] {
  const at = first === undefined ? -1 : items.findIndex((i) => i.path === first);
  return at < 0 ? [...items] : [items[at]!, ...items.slice(0, at), ...items.slice(at + 1)];
}
