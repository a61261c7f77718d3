/** A ticket id, as the schema takes it: letters, digits, dot, dash or underscore, starting with a letter or digit. */
export const TICKET_ID = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

const NUMBERED = /^(.+)-(\d+)$/;

/**
 * The id New Ticket proposes: the number after the highest of the existing tickets' most common
 * `<PREFIX>-<n>` (BLOG-13 exists: BLOG-14), never one that exists in any case (a ticket's id names
 * its file, and some file systems ignore case); undefined when no ticket is numbered.
 */
export function nextTicketId(existing: readonly string[]): string | undefined {
  const byPrefix = new Map<string, { count: number; top: string }>();
  for (const id of existing) {
    const m = NUMBERED.exec(id);
    if (!m) continue;
    const p = byPrefix.get(m[1]!) ?? { count: 0, top: '0' };
    byPrefix.set(m[1]!, { count: p.count + 1, top: BigInt(m[2]!) > BigInt(p.top) ? m[2]! : p.top });
  }
  let prefix: string | undefined;
  for (const [p, v] of byPrefix) if (!prefix || v.count > byPrefix.get(prefix)!.count) prefix = p;
  if (prefix === undefined) return undefined;
  const taken = new Set(existing.map((id) => id.toLowerCase()));
  const top = byPrefix.get(prefix)!.top;
  for (let n = BigInt(top) + 1n; ; n++) {
    const id = `${prefix}-${String(n).padStart(top.length, '0')}`;
    if (!taken.has(id.toLowerCase())) return id;
  }
}

/** What is wrong with an id typed for a new ticket, in the words the input box shows; undefined when nothing is. */
export function ticketIdProblem(value: string, existing: readonly string[]): string | undefined {
  const free = nextTicketId(existing);
  if (!TICKET_ID.test(value))
    return `Letters, digits, dot, dash or underscore, starting with a letter or digit (for example ${free ?? 'PROJ-1'})`;
  const same = existing.find((id) => id.toLowerCase() === value.toLowerCase());
  if (same) return `A ticket ${same} already exists: pick another id${free ? ` (${free} is free)` : ''}`;
  return undefined;
}
