// How a copy of a fixture project gets its packages without the network: the one owner of this
// for the demo (scripts/demo.mjs) and the tests (test/support/tempWorkspace.ts).
// CommonJS, so that both the ES module demo and the tests' CommonJS build can load it.
const { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync } = require('node:fs');
const { dirname, join, relative } = require('node:path');

/** Caches vite and others write into node_modules: each copy keeps its own. */
const NOT_SHARED = new Set(['.vite', '.vite-temp', '.cache']);

/**
 * A node_modules folder of the copy's own whose packages link to `shared`'s, as an installed
 * project has: vite writes its bundled config and its cache into node_modules, and the sandbox
 * lets a test run write only inside the workspace.
 */
function linkSharedPackages(root, shared) {
  const own = join(root, 'node_modules');
  mkdirSync(own);
  for (const name of readdirSync(shared)) {
    if (!NOT_SHARED.has(name)) symlinkSync(join(shared, name), join(own, name));
  }
}

/**
 * What `npm install` does for an npm-workspaces project: each package the root's `workspaces`
 * globs name (`dir/*` or an exact folder) gets a relative symlink `node_modules/<its name>` ->
 * its folder, so the packages import each other by name. A project without workspaces is left as is.
 */
function linkWorkspacePackages(root) {
  const { workspaces = [] } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  for (const pattern of workspaces) {
    const dirs = pattern.endsWith('/*')
      ? readdirSync(join(root, pattern.slice(0, -2))).map((d) => join(pattern.slice(0, -2), d))
      : [pattern];
    for (const dir of dirs) {
      const manifest = join(root, dir, 'package.json');
      if (!existsSync(manifest)) continue;
      const { name } = JSON.parse(readFileSync(manifest, 'utf8'));
      const link = join(root, 'node_modules', ...name.split('/'));
      mkdirSync(dirname(link), { recursive: true });
      symlinkSync(relative(dirname(link), join(root, dir)), link, 'dir');
    }
  }
}

module.exports = { linkSharedPackages, linkWorkspacePackages };
