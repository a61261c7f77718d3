import { readdirSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { UserInputError } from '../../core/errors';
import { isTicketFileName, ticketBaseName } from '../../core/ticket/ticketFormat';

/** A file-name pattern with `*` and `?` as a regular expression; everything else is literal. */
function nameMatcher(pattern: string): RegExp {
  const body = pattern
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '[^/]*')
    .replace(/\?/g, '[^/]');
  return new RegExp(`^${body}$`);
}

/**
 * The tickets a batch names, as sorted workspace-relative paths: every `*.ticket.json` (or `.ticket.yaml`) of a
 * folder, or the files a pattern matches (wildcards in the file name only, such as
 * `.tickets/BLOG-*.ticket.json`; the shell may expand it first, which gives the same list).
 */
export function findTickets(ws: string, specs: readonly string[]): string[] {
  if (!specs.length)
    throw new UserInputError('batch needs a folder of tickets or a pattern, such as .tickets or ".tickets/BLOG-*.ticket.json"');
  const found = new Set<string>();
  for (const spec of specs) {
    const abs = path.resolve(ws, spec);
    const rel = (p: string) => path.relative(ws, p).split(path.sep).join('/');
    if (rel(abs).startsWith('..'))
      throw new UserInputError(`${spec} is outside the workspace ${ws}: tickets run in copies of the workspace, so they must be in it`);
    const wild = /[*?]/.test(path.basename(abs));
    if (/[*?]/.test(path.dirname(abs)))
      throw new UserInputError(`${spec}: wildcards are allowed in the file name only, such as .tickets/BLOG-*.ticket.json`);
    let st;
    try {
      st = wild ? null : statSync(abs);
    } catch {
      throw new UserInputError(`no ticket or folder at ${spec} in ${ws}`);
    }
    if (st?.isFile()) {
      found.add(rel(abs));
      continue;
    }
    const dir = st ? abs : path.dirname(abs);
    const match = st ? isTicketFileName : (n: string) => nameMatcher(path.basename(abs)).test(n);
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      throw new UserInputError(`no folder ${rel(dir) || '.'} in ${ws} for ${spec}`);
    }
    for (const n of names) if (match(n) && statSync(path.join(dir, n)).isFile()) found.add(rel(path.join(dir, n)));
  }
  if (!found.size)
    throw new UserInputError(`no ticket matched ${specs.join(' ')} in ${ws}: tickets are files named <ID>.ticket.json or <ID>.ticket.yaml`);
  return [...found].sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
}

/** A ticket's id as its file names it (BLOG-5 for .tickets/BLOG-5.ticket.json): the name of its tree and branch. */
export function ticketIdOf(ticket: string): string {
  return ticketBaseName(path.basename(ticket));
}
