import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, type Stats } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { linkSharedPackages, linkWorkspacePackages } from '../../scripts/fixtureLinks.cjs';

export const REPO_ROOT = path.resolve(__dirname, '..', '..');

export const FIXTURE = path.join(REPO_ROOT, 'test', 'fixtures', 'blog-api');

/** The fixture projects under test/fixtures. */
export type FixtureName = 'blog-api' | 'shop-esm' | 'inventory-jest' | 'mono-ws';

export const fixturePath = (name: FixtureName): string => path.join(REPO_ROOT, 'test', 'fixtures', name);

/** A fresh copy of a fixture (blog-api by default); its devDependencies come from this repo's node_modules. */
export function copyFixture(name: FixtureName = 'blog-api'): { root: string; dispose: () => void } {
  const base = mkdtempSync(path.join(tmpdir(), 'tr-test-'));
  const root = path.join(base, name);
  cpSync(fixturePath(name), root, { recursive: true, filter: (src) => !src.includes('node_modules') });
  if (name === 'blog-api') symlinkSync(path.join(REPO_ROOT, 'node_modules'), path.join(root, 'node_modules'), 'dir');
  else linkSharedPackages(root, path.join(REPO_ROOT, 'node_modules'));
  linkWorkspacePackages(root);
  return { root, dispose: () => rmSync(base, { recursive: true, force: true }) };
}

/**
 * A copy of a workspace as it stands, its run store and modes included, for a run that several
 * tests take on from the same point (each decides, resumes or rolls back its own copy). Links stay
 * links: node_modules points where the original's does.
 */
export function copyWorkspace(root: string): { root: string; dispose: () => void } {
  const base = mkdtempSync(path.join(tmpdir(), 'tr-test-'));
  const copy = path.join(base, path.basename(root));
  cpSync(root, copy, { recursive: true, verbatimSymlinks: true });
  return { root: copy, dispose: () => rmSync(base, { recursive: true, force: true }) };
}

/**
 * Each entry of a tree in a fixed order (sorted names, a folder before what it holds), skipping
 * the run store and node_modules: what `treeHash` and `treeDifferences` both look at.
 */
function walkTree(root: string, visit: (rel: string, st: Stats, abs: string) => void): void {
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      if (name === 'node_modules' || name === '.ticket-runner') continue;
      const p = path.join(dir, name);
      const st = statSync(p);
      visit(path.relative(root, p), st, p);
      if (st.isDirectory()) walk(p);
    }
  };
  walk(root);
}

const modeOf = (st: Stats): string => (st.mode & 0o7777).toString(8);

/**
 * A hash of every file of a tree (paths and bytes), skipping the run store and node_modules.
 * With `modes`, every folder and each file's permission bits count too: an exact rollback
 * leaves no empty folder behind and no mode changed.
 */
export function treeHash(root: string, o: { modes?: boolean } = {}): string {
  const h = createHash('sha256');
  walkTree(root, (rel, st, abs) => {
    if (o.modes) h.update(rel).update(`\0${modeOf(st)}\0`);
    if (!st.isDirectory()) h.update(rel).update('\0').update(readFileSync(abs)).update('\0');
  });
  return h.digest('hex');
}

/** Each path of a tree (as `treeHash` walks it) with its mode and a hash of its bytes. */
function treeListing(root: string): Map<string, string> {
  const out = new Map<string, string>();
  walkTree(root, (rel, st, abs) => {
    if (st.isDirectory()) out.set(`${rel}/`, modeOf(st));
    else out.set(rel, `${modeOf(st)} ${createHash('sha256').update(readFileSync(abs)).digest('hex').slice(0, 12)}`);
  });
  return out;
}

/**
 * How tree `actual` differs from tree `expected` (modes and contents), one line per path, for the
 * message of a failed `treeHash` comparison: a hash alone says that they differ, not where.
 */
export function treeDifferences(actual: string, expected: string): string {
  const a = treeListing(actual);
  const e = treeListing(expected);
  const lines: string[] = [];
  for (const [p, v] of e) if (!a.has(p)) lines.push(`missing ${p} (${v})`);
  for (const [p, v] of a) {
    if (!e.has(p)) lines.push(`extra ${p} (${v})`);
    else if (e.get(p) !== v) lines.push(`differs ${p}: ${v}, expected ${e.get(p)}`);
  }
  return lines.join('\n') || 'no difference now';
}
