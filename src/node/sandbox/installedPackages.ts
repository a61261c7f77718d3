import { readdirSync } from 'node:fs';
import * as path from 'node:path';
import { isInside, realPathOr } from '../workspacePaths';

/**
 * The packages that judge a test run: the runners, their loaders and assertion libraries, the
 * TypeScript that checks. By name, or by prefix for the families of many packages.
 */
const TOOLING = new Set([
  'tsx',
  'vitest',
  'vite',
  'mocha',
  'jest',
  'ts-jest',
  'babel-jest',
  'expect',
  'chai',
  'typescript',
  'esbuild',
  'ts-node',
  '@vitest',
  '@jest',
  '@esbuild',
  '@babel',
  '@swc',
  '.bin',
]);
const TOOLING_PREFIXES = ['jest-', 'vite-', 'vitest-'];

/**
 * The installed packages a run's processes may not write: the code under test runs inside the
 * test runner, and a write into the runner's own files (its loader, its reporter, its assertion
 * library) would change how every later test run is judged, with nothing of it in the change
 * that is reviewed. Each such top-level entry of `<root>/node_modules` that lies inside the
 * workspace is listed (one linked from elsewhere is outside the sandbox's writable roots
 * already). Not node_modules itself: its caches (`.vite`, `.vite-temp`) are written while tests
 * run, and a read-only folder would hide them; nor every entry: each one is a mount for every
 * command (a thousand cost about 0.8 s a command, measured).
 */
export function installedPackageEntries(root: string): string[] {
  const dir = path.join(root, 'node_modules');
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const realRoot = realPathOr(root);
  return names
    .filter((n) => TOOLING.has(n) || TOOLING_PREFIXES.some((p) => n.startsWith(p)))
    .map((n) => path.join(dir, n))
    .filter((p) => isInside(realRoot, realPathOr(p)));
}
