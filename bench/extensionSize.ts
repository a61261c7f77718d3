import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';

export interface ExtensionFigures {
  /** What was measured: the packaged .vsix, or dist/extension.js when there is no package script yet. */
  artifact: string;
  bytes: number;
  note: string;
}

/** The .vsix when `npm run package` exists (built here, so its size is this checkout's); otherwise the extension bundle, said so. */
export function measureExtension(repoRoot: string): ExtensionFigures {
  const pkg = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { scripts?: Record<string, string> };
  if (pkg.scripts?.package) {
    const started = Date.now();
    const r = spawnSync('npm', ['run', 'package'], { cwd: repoRoot, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`npm run package failed (exit ${r.status}):\n${r.stdout}${r.stderr}`);
    const vsix = readdirSync(repoRoot)
      .filter((f) => f.endsWith('.vsix'))
      .map((f) => ({ f, s: statSync(path.join(repoRoot, f)) }))
      .filter((x) => x.s.mtimeMs >= started - 1000)
      .sort((a, b) => b.s.mtimeMs - a.s.mtimeMs)[0];
    if (vsix) return { artifact: vsix.f, bytes: vsix.s.size, note: 'built by npm run package in this run' };
  }
  const bundle = path.join(repoRoot, 'dist', 'extension.js');
  return {
    artifact: 'dist/extension.js',
    bytes: statSync(bundle).size,
    note: pkg.scripts?.package
      ? 'npm run package left no new .vsix in the repo root: the bundle is measured instead'
      : 'no npm run package script yet: the extension bundle (development build) is measured instead of a .vsix',
  };
}
