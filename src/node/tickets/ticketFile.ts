import { readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { UserInputError } from '../../core/errors';
import { normalizeRelPath } from '../../core/schema/paths';
import { MAX_TICKET_BYTES } from '../../core/ticket/ticketLoader';

/**
 * The ticket a command names, as a workspace-relative path and its text. It is checked with
 * stat before it is opened: reading a FIFO would block forever, a device never ends, and a
 * huge file would be copied into every prompt and the log.
 */
export function readTicketFile(ws: string, ticket: string): { rel: string; text: string } {
  const rel = normalizeRelPath(path.relative(ws, path.resolve(ws, ticket)).split(path.sep).join('/'));
  const file = path.join(ws, rel);
  let st;
  try {
    st = statSync(file);
  } catch {
    throw new UserInputError(`no ticket at ${rel} in ${ws}`);
  }
  if (st.isDirectory())
    throw new UserInputError(`${rel} is a folder, not a ticket: give the path of a ticket file, such as .tickets/BLOG-1.ticket.json`);
  if (!st.isFile())
    throw new UserInputError(
      `${rel} is not a regular file (a FIFO, a device or a socket): give the path of a ticket file, such as .tickets/BLOG-1.ticket.json`,
    );
  if (st.size > MAX_TICKET_BYTES) {
    throw new UserInputError(
      `${rel} is ${(st.size / 1024 / 1024).toFixed(1)} MB; a ticket may be at most ${MAX_TICKET_BYTES / 1024 / 1024} MB: is it the right file?`,
    );
  }
  return { rel, text: readFileSync(file, 'utf8') };
}
