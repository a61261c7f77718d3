import { createHash } from 'node:crypto';
import type { BigIntStats } from 'node:fs';
import { lstat, readFile, readlink } from 'node:fs/promises';
import { Worker } from 'node:worker_threads';
import { z } from 'zod';
import * as path from 'node:path';
import { realPathOr } from '../workspacePaths';
import { folderStampsSync, type StampedFolder } from './packageStamps';
import { SKIPPED } from './treeSkips';
import { stampOf, walkTree } from './treeWalk';

/**
 * What a baseline of the project (its type errors, its own tests' results) could read, as one
 * digest: a run reuses a baseline an earlier run kept only under the same digest, since a stale
 * one would forgive a regression (a case that failed then, and that the change breaks now,
 * would pass as "already failing"). So it covers, by content or by a stamp that no write can
 * keep (treeWalk.ts):
 * - every file of the workspace tree by its content (git's view would miss untracked and
 *   ignored files that tests read), so that two checkouts of one commit (a batch's worktrees)
 *   share it;
 * - every installed package, in each node_modules folder the tests resolve from (the
 *   workspace's, a package's, each folder's above it), by the stamps of all its files: a
 *   package reinstalled or patched in place changes them; the runners' own caches do not count;
 * - the node that runs the tests, Ticket Runner's own preloads and reporters, and TypeScript
 *   (installed, or the bundled one among Ticket Runner's files);
 * - the environment every test command gets, and the settings that decide how they run.
 * Not covered: files outside all of these that a test reads (the user's home, the system's
 * temp folder), which a test in the OS sandbox cannot read either.
 */
export interface FingerprintInputs {
  root: string;
  /** The environment every test command gets, less each command's own home and temp folders. */
  env: Readonly<Record<string, string>>;
  /** The node that runs the tests: a path, or a name looked up on the environment's PATH. */
  nodePath: string;
  /** Ticket Runner's own folder of built files, whose preloads and reporters run in the test processes. */
  productDir: string;
  /** What else decides how the tests and the checker run (the sandbox, a test command): any JSON. */
  settings: unknown;
  /** The built worker that stamps the installed packages off this thread (dist/fingerprintWorker.js); without it, they are stamped here. */
  worker?: string;
}

/** The runners' caches inside node_modules: rebuilt by them as they run, never installed code. */
const PACKAGE_CACHES: ReadonlySet<string> = new Set(['.vite', '.vite-temp', '.cache']);
/** The environment's entries that differ for every command by design. */
const PER_COMMAND = new Set(['HOME', 'USERPROFILE', 'TMPDIR', 'TMP', 'TEMP']);
/** Files read at once while the tree is hashed. */
const AT_ONCE = 32;

/**
 * A file's content digest by its stamp, for this process: the second digest of a run (taken to
 * see that nothing changed while the baseline was measured) and a later run in the same window
 * read only what changed. A stamp cannot stay the same across a write (its change time).
 */
const digests = new Map<string, string>();
const MAX_REMEMBERED = 200_000;

export async function baselineFingerprint(i: FingerprintInputs, signal: AbortSignal): Promise<string> {
  const walked = await walkTree(i.root, { skip: SKIPPED });
  const folders = [...packageFolders(i.root, walked.skipped), { name: 'ticket-runner', real: i.productDir, followLinks: false }];
  const [tree, stamps, node] = await Promise.all([
    treeDigest(i.root, walked.entries, signal),
    folderStamps(folders, i.worker),
    nodeDigest(i.nodePath, i.env['PATH'] ?? ''),
  ]);
  signal.throwIfAborted();
  const env = Object.entries(i.env)
    .filter(([name]) => !PER_COMMAND.has(name))
    .sort(([a], [b]) => (a < b ? -1 : 1));
  return createHash('sha256')
    .update(JSON.stringify({ tree, stamps: stamps.filter(Boolean), node, env, settings: i.settings }))
    .digest('hex');
}

/** Every entry of the tree (without what SKIPPED names) by path: a file by its content and whether it runs, a link by its target. */
async function treeDigest(root: string, entries: ReadonlyMap<string, BigIntStats>, signal: AbortSignal): Promise<string> {
  const sorted = [...entries].sort(([a], [b]) => (a < b ? -1 : 1));
  const lines = new Array<string>(sorted.length);
  for (let at = 0; at < sorted.length; at += AT_ONCE) {
    signal.throwIfAborted();
    await Promise.all(
      sorted.slice(at, at + AT_ONCE).map(async ([rel, st], n) => {
        lines[at + n] = `${rel}\0${await entryDigest(path.join(root, rel), st)}`;
      }),
    );
  }
  return createHash('sha256').update(lines.join('\n')).digest('hex');
}

async function entryDigest(file: string, st: BigIntStats): Promise<string> {
  if (st.isDirectory()) return 'dir';
  if (st.isSymbolicLink()) return `link:${await readlink(file)}`;
  if (!st.isFile()) return `other:${st.mode}`;
  const stamp = `${file}\0${stampOf(st)}`;
  let digest = digests.get(stamp);
  if (!digest) {
    digest = createHash('sha256')
      .update(await readFile(file))
      .digest('hex');
    if (digests.size >= MAX_REMEMBERED) digests.clear();
    digests.set(stamp, digest);
  }
  return `${(st.mode & 0o111n) !== 0n ? 'x' : 'f'}:${digest}`;
}

/**
 * Every node_modules folder the workspace's code resolves packages from: those in the tree (the
 * walk skips them, and names where), and the one of each folder above the workspace. Named from
 * the workspace (`node_modules`, `packages/a/node_modules`, `../node_modules`), and walked where
 * they are, so that a second checkout elsewhere whose packages are the same links has the same key.
 */
function packageFolders(root: string, skipped: ReadonlyMap<string, BigIntStats>): StampedFolder[] {
  const names = [...skipped.keys()].filter((rel) => path.basename(rel) === 'node_modules');
  for (let dir = path.dirname(root), up = '..'; ; dir = path.dirname(dir), up += '/..') {
    names.push(`${up}/node_modules`);
    if (path.dirname(dir) === dir) break;
  }
  return names.sort().map((name) => ({ name, real: realPathOr(path.join(root, name)), followLinks: true }));
}

const Stamps = z.array(z.string());

/** `folderStampsSync` in a worker thread when the build has one (the editor's thread never walks them), else here. */
function folderStamps(folders: StampedFolder[], script: string | undefined): Promise<string[]> {
  const skip = [...PACKAGE_CACHES];
  if (!script) return Promise.resolve(folderStampsSync(folders, skip));
  return new Promise((resolve, reject) => {
    const worker = new Worker(script, { workerData: { folders, skip }, execArgv: [] });
    worker.once('message', (raw: unknown) => {
      const parsed = Stamps.safeParse(raw);
      if (parsed.success) resolve(parsed.data);
      else reject(new Error(`the fingerprint worker answered out of its protocol: ${parsed.error.message}`));
    });
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the fingerprint worker ended (exit code ${code}) before it answered`)));
  });
}

/** The node that runs the tests, by where it is and its stamp: an upgrade in place changes the stamp. */
async function nodeDigest(nodePath: string, searchPath: string): Promise<string> {
  const candidates = path.isAbsolute(nodePath) ? [nodePath] : searchPath.split(path.delimiter).map((d) => path.join(d, nodePath));
  for (const c of candidates) {
    const real = realPathOr(c);
    const st = await lstat(real, { bigint: true }).catch(() => undefined);
    if (st?.isFile()) return `${real}\0${stampOf(st)}`;
  }
  return `not found: ${nodePath}`;
}
