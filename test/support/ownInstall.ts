import { cpSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import * as path from 'node:path';
import { linkSharedPackages } from '../../scripts/fixtureLinks.cjs';
import { REPO_ROOT } from './tempWorkspace';

/**
 * Makes the packages `names` need, by their manifests, real copies in the workspace's node_modules
 * (from this repository's flat one; the fixture has links): an install of the runner of the
 * workspace's own, as a real project has, where jest finds jest-circus and jest-circus finds co
 * (through a link, Node would resolve them in this repository's node_modules).
 */
export function ownInstall(root: string, names: readonly string[]): void {
  const modules = path.join(root, 'node_modules');
  // blog-api's copy links node_modules whole: it becomes a folder of links first, or the copies
  // below would replace this repository's own packages.
  if (lstatSync(modules).isSymbolicLink()) {
    rmSync(modules);
    linkSharedPackages(root, path.join(REPO_ROOT, 'node_modules'));
  }
  const seen = new Set<string>();
  const queue = [...names];
  while (queue.length) {
    const name = queue.pop()!;
    if (seen.has(name) || !existsSync(path.join(REPO_ROOT, 'node_modules', name, 'package.json'))) continue;
    seen.add(name);
    const manifest = JSON.parse(readFileSync(path.join(REPO_ROOT, 'node_modules', name, 'package.json'), 'utf8')) as Record<
      string,
      Record<string, string> | undefined
    >;
    queue.push(...Object.keys({ ...manifest.dependencies, ...manifest.optionalDependencies, ...manifest.peerDependencies }));
  }
  for (const name of seen) {
    const at = path.join(modules, name);
    const scope = name.startsWith('@') ? path.dirname(at) : undefined;
    // A scope is one link in the fixture's copy: it becomes a folder of links, never written through.
    if (scope && lstatSync(scope).isSymbolicLink()) {
      rmSync(scope);
      mkdirSync(scope);
      const shared = path.join(REPO_ROOT, 'node_modules', path.basename(scope));
      for (const entry of readdirSync(shared)) symlinkSync(path.join(shared, entry), path.join(scope, entry));
    }
    rmSync(at, { force: true });
    cpSync(path.join(REPO_ROOT, 'node_modules', name), at, { recursive: true, dereference: true });
  }
}
