import { isAbsolute, relative, resolve, sep } from 'node:path';

/** An absolute path with forward slashes: the form TypeScript and the results use. */
export function absolutePath(root: string, path: string): string {
  return (isAbsolute(path) ? resolve(path) : resolve(root, path)).split(sep).join('/');
}

/** Workspace-relative with forward slashes; a path outside the workspace stays absolute, so it is never mistaken for one inside. */
export function workspacePath(root: string, path: string): string {
  const rel = relative(root, resolve(root, path));
  if (rel.startsWith('..') || isAbsolute(rel)) return resolve(root, path).split(sep).join('/');
  return rel.split(sep).join('/');
}
