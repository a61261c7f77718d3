import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { EnvironmentPort } from '../../core/ports/environment';
import { parsePackageJson } from '../../core/schema/packageJson';

const GIT_TIMEOUT_MS = 10_000;

/** git's answer, or null when it fails, times out or the run is cancelled (the abort kills it). */
function git(root: string, args: string[], signal: AbortSignal): Promise<string | null> {
  return new Promise((resolve) => {
    execFile('git', args, { cwd: root, timeout: GIT_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024, windowsHide: true, signal }, (err, stdout) =>
      resolve(err ? null : stdout),
    );
  });
}

/** The workspace's package manager and git, asked before a run starts. */
export class NodeEnvironment implements EnvironmentPort {
  constructor(private readonly root: string) {}

  /**
   * Without its dependencies every attempt fails the same way (TS2307: cannot find module),
   * and the Debugger is asked about it again and again: say it once, before the first attempt.
   * Node resolves packages from the folder up, so a node_modules above the workspace counts.
   */
  dependencyProblem(): Promise<string | null> {
    let declared = 0;
    try {
      const pkg = parsePackageJson(readFileSync(path.join(this.root, 'package.json'), 'utf8'));
      declared = Object.keys(pkg.dependencies ?? {}).length + Object.keys(pkg.devDependencies ?? {}).length;
    } catch {
      return Promise.resolve(null); // No package.json (or a broken one, which the manifest reports).
    }
    if (!declared) return Promise.resolve(null);
    for (let dir = this.root; ; dir = path.dirname(dir)) {
      if (existsSync(path.join(dir, 'node_modules'))) return Promise.resolve(null);
      if (path.dirname(dir) === dir) break;
    }
    return Promise.resolve(
      `dependencies are not installed: run npm install in ${this.root} (the project declares ${declared} and there is no node_modules)`,
    );
  }

  async uncommitted(paths: readonly string[], signal: AbortSignal): Promise<string[] | null> {
    if (!paths.length) return [];
    // Porcelain paths are relative to the repository's top: the prefix maps them back to the workspace.
    const prefix = await git(this.root, ['rev-parse', '--show-prefix'], signal);
    if (prefix === null) return null;
    const out = await git(this.root, ['status', '--porcelain=v1', '-z', '--untracked-files=all', '--', ...paths], signal);
    if (out === null) return null;
    const found = new Set<string>();
    const entries = out.split('\0');
    for (let i = 0; i < entries.length; i++) {
      const e = entries[i]!;
      if (e.length < 4) continue;
      const status = e.slice(0, 2);
      const file = e.slice(3);
      if (status.includes('R') || status.includes('C')) i++; // The next entry is the rename's source.
      const rel = prefix.trim() && file.startsWith(prefix.trim()) ? file.slice(prefix.trim().length) : file;
      if (status !== '!!') found.add(rel);
    }
    return [...found].sort();
  }
}
