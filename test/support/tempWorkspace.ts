import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

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
  else linkPackages(root);
  linkWorkspacePackages(root);
  return { root, dispose: () => rmSync(base, { recursive: true, force: true }) };
}

/**
 * A node_modules folder of the workspace's own whose packages link to this repo's, as an
 * installed project has: vite writes its bundled config and its cache into node_modules, and
 * the sandbox lets a test run write only inside the workspace.
 */
function linkPackages(root: string): void {
  const own = path.join(root, 'node_modules');
  mkdirSync(own);
  const shared = path.join(REPO_ROOT, 'node_modules');
  for (const name of readdirSync(shared)) {
    if (name === '.vite' || name === '.vite-temp' || name === '.cache') continue;
    symlinkSync(path.join(shared, name), path.join(own, name));
  }
}

/**
 * What `npm install` does for an npm-workspaces project, without the network: each package the
 * root's `workspaces` globs name (`dir/*` or an exact folder) gets a relative symlink
 * `node_modules/<its name>` -> its folder, so the packages import each other by name.
 */
function linkWorkspacePackages(root: string): void {
  const { workspaces } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { workspaces?: string[] };
  for (const pattern of workspaces ?? []) {
    const dirs = pattern.endsWith('/*') ? readdirSync(path.join(root, pattern.slice(0, -2))).map((d) => path.join(pattern.slice(0, -2), d)) : [pattern];
    for (const dir of dirs) {
      const manifest = path.join(root, dir, 'package.json');
      if (!existsSync(manifest)) continue;
      const { name } = JSON.parse(readFileSync(manifest, 'utf8')) as { name: string };
      const link = path.join(root, 'node_modules', ...name.split('/'));
      mkdirSync(path.dirname(link), { recursive: true });
      symlinkSync(path.relative(path.dirname(link), path.join(root, dir)), link, 'dir');
    }
  }
}

/**
 * A hash of every file of a tree (paths and bytes), skipping the run store and node_modules.
 * With `modes`, every folder and each file's permission bits count too: an exact rollback
 * leaves no empty folder behind and no mode changed.
 */
export function treeHash(root: string, o: { modes?: boolean } = {}): string {
  const h = createHash('sha256');
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      if (name === 'node_modules' || name === '.ticket-runner') continue;
      const p = path.join(dir, name);
      const st = statSync(p);
      if (o.modes) h.update(path.relative(root, p)).update(`\0${(st.mode & 0o7777).toString(8)}\0`);
      if (st.isDirectory()) walk(p);
      else h.update(path.relative(root, p)).update('\0').update(readFileSync(p)).update('\0');
    }
  };
  walk(root);
  return h.digest('hex');
}
