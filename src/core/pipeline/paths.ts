import { PathError } from '../errors';

/**
 * Workspace-relative path handling, in the core (which has no node:path). Every path a
 * model or a ticket names goes through `normalizeRelPath` before any port sees it.
 */

/** Normalizes a workspace-relative path; throws PathError when it is absolute or escapes. */
export function normalizeRelPath(input: string): string {
  const p = input.replace(/\\/g, '/').trim();
  if (p === '') throw new PathError('empty path');
  if (p.startsWith('/') || /^[A-Za-z]:/.test(p)) throw new PathError(`"${input}" is absolute: use a path relative to the workspace root`);
  const out: string[] = [];
  for (const seg of p.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') {
      if (out.length === 0) throw new PathError(`"${input}" escapes the workspace`);
      out.pop();
    } else out.push(seg);
  }
  if (out.length === 0) throw new PathError(`"${input}" names the workspace root, not a file`);
  return out.join('/');
}

/** The folder part of a relative path ('' at the root). */
export function dirOf(path: string): string {
  const i = path.lastIndexOf('/');
  return i < 0 ? '' : path.slice(0, i);
}

/** A relative module specifier from one workspace file to another, without extension. */
export function relativeSpecifier(fromFile: string, toFile: string): string {
  const from = dirOf(fromFile).split('/').filter(Boolean);
  const to = toFile.replace(/\.(tsx?|jsx?|mts|cts)$/, '').split('/');
  let i = 0;
  while (i < from.length && i < to.length - 1 && from[i] === to[i]) i++;
  const ups = from.length - i;
  const rest = to.slice(i).join('/');
  return ups === 0 ? `./${rest}` : `${'../'.repeat(ups)}${rest}`;
}
