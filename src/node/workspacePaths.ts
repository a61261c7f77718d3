import { realpathSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';

/** An absolute path with forward slashes: the form TypeScript and the results use. */
export function absolutePath(root: string, path: string): string {
  return (isAbsolute(path) ? resolve(path) : resolve(root, path)).split(sep).join('/');
}

/**
 * Whether `path` (absolute, or relative to `root`) is `root` or inside it. Decided by
 * path.relative, not by a prefix: `/ws-other` shares the prefix of `/ws` and is outside it.
 */
export function isInside(root: string, path: string): boolean {
  const rel = relative(resolve(root), resolve(root, path));
  return rel === '' || (!isAbsolute(rel) && rel !== '..' && !rel.startsWith(`..${sep}`));
}

/** Workspace-relative with forward slashes; a path outside the workspace stays absolute, so it is never mistaken for one inside. */
export function workspacePath(root: string, path: string): string {
  if (!isInside(root, path)) return resolve(root, path).split(sep).join('/');
  return relative(root, resolve(root, path)).split(sep).join('/');
}

/** The path with its links resolved, or the path as given when it does not exist (yet). */
export function realPathOr(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
