import { readdirSync, realpathSync } from 'node:fs';
import * as path from 'node:path';

/** What tools write into node_modules while tests run (vite's cache and bundled config, others' caches). */
const CACHES = new Set(['.vite', '.vite-temp', '.cache']);

/**
 * The installed packages of a workspace, to be read-only to every process of a run: the code
 * under test runs inside the test runner, and a write into the runner's own files (its loader,
 * its reporter, `node_modules/tsx` or `vitest`) would change how every later test run is
 * judged, with nothing of it in the change that is reviewed. Each top-level entry of
 * `<root>/node_modules` that lies inside the workspace is listed (those linked from elsewhere are
 * outside the sandbox's writable roots already); the caches tools write while testing are not.
 * One entry each rather than node_modules itself: a read-only folder would hide the caches in it.
 */
export function installedPackageEntries(root: string): string[] {
  const dir = path.join(root, 'node_modules');
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const inside = realOrSelf(root) + path.sep;
  return names
    .filter((n) => !CACHES.has(n))
    .map((n) => path.join(dir, n))
    .filter((p) => realOrSelf(p).startsWith(inside));
}

function realOrSelf(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}
