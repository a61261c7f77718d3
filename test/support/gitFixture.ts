import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { copyFixture } from './tempWorkspace';

/** git in a test's workspace, with an identity so commits work on any machine. */
export const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', ...args], { cwd, encoding: 'utf8' });

/** A fixture copy in a fresh git repository with one commit, node_modules ignored as a real project does. */
export function copyFixtureInGit(): ReturnType<typeof copyFixture> {
  const ws = copyFixture();
  writeFileSync(path.join(ws.root, '.gitignore'), 'node_modules\n');
  git(ws.root, 'init', '-q');
  git(ws.root, 'add', '-A');
  git(ws.root, 'commit', '-qm', 'fixture');
  return ws;
}

/** What of a repository's `.git` runs code: every hook with its mode and bytes, and the config. */
export function gitState(root: string): string {
  const h = createHash('sha256');
  const hooks = path.join(root, '.git', 'hooks');
  for (const name of readdirSync(hooks).sort()) {
    const p = path.join(hooks, name);
    h.update(`${name}\0${(statSync(p).mode & 0o7777).toString(8)}\0`)
      .update(readFileSync(p))
      .update('\0');
  }
  return h.update(readFileSync(path.join(root, '.git', 'config'))).digest('hex');
}
