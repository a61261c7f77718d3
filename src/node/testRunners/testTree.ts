import { chmod, cp, lstat, mkdir, readdir, readFile, readlink, rm, stat, symlink, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { stampOf } from '../workspace/entryStamp';
import { KeptCopy } from '../workspace/keptCopy';
import type { Snapshot } from '../workspace/scratchTree';
import { SKIPPED } from '../workspace/treeSkips';
import { walkTree } from '../workspace/treeWalk';
import { isInside } from '../workspacePaths';

/** A file or folder of the workspace that differs between two looks at it. */
export interface TreeChange {
  path: string;
  change: 'created' | 'modified' | 'deleted';
}

/** What tools write in a node_modules folder as they run (vite's bundled config, caches): the copy's own, made afresh for each command. */
const CACHES = new Set(['.vite', '.vite-temp', '.cache']);

/**
 * The tree the test commands run in: a copy of the workspace kept for the run (keptCopy.ts). Its
 * node_modules folders are its own, each entry a link to the workspace's package (large, and
 * read-only to a command), so what tools write there as they run stays in the copy. Before
 * each command the copy is brought back to the workspace as it stands, undoing whatever the last
 * command left. A command then writes the copy, never the workspace, so what the user saves
 * beside the run is never put back with the tests' writes: there is nothing to put back in the
 * workspace, and nothing there to race with.
 */
export class TestTree {
  /** The copy's root. */
  readonly dir: string;
  private readonly copy: KeptCopy;
  /** The nested node_modules folders of the workspace (an npm-workspaces package's own), linked in the copy too. */
  private nested: string[] | undefined;
  /** The git hooks' and config's bytes and modes at the last sync: what `putBack` writes again. */
  private gitBefore = new Map<string, { bytes: Buffer; mode: number }>();
  /** One sync at a time: a prepare's and a run's would both write the copy. */
  private queue: Promise<unknown> = Promise.resolve();
  /** Each node_modules folder of the copy as last linked, by path from the root. */
  private readonly linked: LinkedFolders = new Map();

  constructor(readonly root: string) {
    this.copy = new KeptCopy(root, { prefix: 'ticket-runner-tree-', link: (dir) => this.link(dir), gitWatched: true, samePath: true });
    this.dir = this.copy.dir;
  }

  /**
   * Brings the copy to the workspace as it stands, and gives the workspace's stamps as copied
   * (with the git hooks and config): what `changedSince` compares with once the command has ended.
   */
  sync(): Promise<Snapshot> {
    const next = this.queue.then(async () => {
      const source = await this.copy.sync();
      await this.keepGit(source);
      return source;
    });
    this.queue = next.catch(() => undefined);
    return next;
  }

  /**
   * The workspace's files and folders that differ from `before` (a `sync`'s stamps), with the
   * git hooks and config, which the copy does not hold but a command without the sandbox could
   * reach: what changed in the workspace while a command ran in the copy.
   */
  async changedSince(before: Snapshot): Promise<TreeChange[]> {
    const now = await this.copy.sourceStamps();
    const out: TreeChange[] = [];
    for (const [rel, stamp] of now) {
      const was = before.get(rel);
      if (was === undefined) out.push({ path: rel, change: 'created' });
      else if (was !== stamp && stamp !== 'dir') out.push({ path: rel, change: 'modified' });
    }
    for (const rel of before.keys()) if (!now.has(rel)) out.push({ path: rel, change: 'deleted' });
    // A folder made or removed with what is in it is one change, said once.
    const folders = out.filter((c) => c.change !== 'modified' && (now.get(c.path) ?? before.get(c.path)) === 'dir').map((c) => c.path);
    return out.filter((c) => !folders.some((f) => c.path.startsWith(`${f}/`))).sort((a, b) => a.path.localeCompare(b.path));
  }

  /**
   * Puts a file of the workspace that git or the editor runs code from (`.git/hooks`,
   * `.git/config`, `.vscode/`) back as it was at the last sync: from the bytes kept then, or
   * from the copy, which the command's own changes were undone in. One that was not there goes.
   */
  async putBack(rel: string): Promise<boolean> {
    const abs = path.join(this.root, rel);
    try {
      const git = this.gitBefore.get(rel);
      if (rel.startsWith('.git/')) {
        await rm(abs, { recursive: true, force: true });
        if (git) {
          await writeFile(abs, git.bytes);
          await chmod(abs, git.mode & 0o7777);
        }
        return true;
      }
      const inCopy = path.join(this.dir, rel);
      await rm(abs, { recursive: true, force: true });
      if (await lstat(inCopy).catch(() => undefined))
        await cp(inCopy, abs, { recursive: true, verbatimSymlinks: true, preserveTimestamps: true });
      return true;
    } catch {
      return false;
    }
  }

  /** Removes the copy: the run is over. Off the event loop's back: a copy with its links is thousands of entries. */
  async dispose(): Promise<void> {
    await this.queue;
    await this.copy.dispose();
  }

  /** The copy's node_modules folders, each made again as links; what is below the top is stamped again by the copy. */
  private async link(dir: string): Promise<readonly string[]> {
    this.nested ??= await nestedPackages(this.root);
    await linkPackages(this.root, dir, 'node_modules', this.linked);
    for (const rel of this.nested)
      if (await lstat(path.join(dir, path.dirname(rel))).catch(() => undefined)) await linkPackages(this.root, dir, rel, this.linked);
    return this.nested;
  }

  /** The git hooks' and config's bytes now, for `putBack`. */
  private async keepGit(stamps: Snapshot): Promise<void> {
    this.gitBefore = new Map();
    for (const [rel, stamp] of stamps) {
      if (!rel.startsWith('.git/') || stamp === 'dir') continue;
      const abs = path.join(this.root, rel);
      const [bytes, st] = await Promise.all([readFile(abs).catch(() => undefined), lstat(abs).catch(() => undefined)]);
      if (bytes && st?.isFile()) this.gitBefore.set(rel, { bytes, mode: st.mode });
    }
  }
}

/** The workspace's node_modules folders below its top, by path from the root (not inside another node_modules). */
async function nestedPackages(root: string): Promise<string[]> {
  const { skipped } = await walkTree(root, { skip: SKIPPED });
  return [...skipped]
    .filter(([rel, st]) => rel.includes('/') && path.posix.basename(rel) === 'node_modules' && st.isDirectory())
    .map(([rel]) => rel);
}

/** What `linkPackages` wants in place of a scope folder (`@types`): a folder of links, not a link. */
const SCOPE = Symbol('scope folder');

/**
 * A node_modules folder of the copy as `linkPackages` left it: the stamps of the workspace's
 * folder (as read before its entries were) and of the copy's (after the links were made), and its
 * scope folders. A command that plants, removes or replaces an entry of the copy's folder moves
 * that folder's change time, which no process can set back, as an install in the workspace moves
 * the workspace's: while neither moved, the links are as they were made, and the next sync looks
 * only at the scope folders below (a few stat calls, not a readlink for each of hundreds of
 * packages before every command).
 */
type LinkedFolders = Map<string, { from: string; to: string; scopes: string[] }>;

/** A folder's stamp with its times ('' when it is not there); `follow`: through a link, as `readdir` reads it. */
async function folderStamp(p: string, follow: boolean): Promise<string> {
  const st = await (follow ? stat : lstat)(p, { bigint: true }).catch(() => undefined);
  return st ? stampOf(st, { folderTimes: true }) : '';
}

/**
 * Makes the copy's node_modules folder at `rel` hold exactly a link to each entry of the
 * workspace's (a scope folder, such as `@types`, is a folder of links in turn), and nothing
 * else: whatever a command planted or replaced there goes, and so do the caches it wrote. A
 * link the workspace has to one of its own packages (npm workspaces) points at the copy's.
 * A folder neither side has touched since it was last linked is left as it is (LinkedFolders).
 */
async function linkPackages(root: string, copy: string, rel: string, linked: LinkedFolders): Promise<void> {
  const from = path.join(root, rel);
  const to = path.join(copy, rel);
  const was = linked.get(rel);
  linked.delete(rel);
  // Stamped before it is read: a package installed while it is read moves the stamp, and the next sync reads it again.
  const fromStamp = await folderStamp(from, true);
  if (was && fromStamp && was.from === fromStamp && was.to === (await folderStamp(to, false))) {
    for (const scope of was.scopes) await linkPackages(root, copy, path.posix.join(rel, scope), linked);
    linked.set(rel, was);
    return;
  }
  const entries = await readdir(from, { withFileTypes: true }).catch(() => undefined);
  const here = await lstat(to).catch(() => undefined);
  if (!entries) {
    if (here) await rm(to, { recursive: true, force: true });
    return;
  }
  if (here && !here.isDirectory()) await rm(to, { recursive: true, force: true });
  await mkdir(to, { recursive: true });
  // A link's target, or SCOPE for a scope folder.
  const wanted = new Map<string, string | typeof SCOPE>();
  for (const e of entries) {
    if (CACHES.has(e.name)) continue;
    wanted.set(
      e.name,
      e.isDirectory() && e.name.startsWith('@') ? SCOPE : await linkTarget(root, copy, path.join(from, e.name), e.isSymbolicLink()),
    );
  }
  const scopes = [...wanted].filter(([, want]) => want === SCOPE).map(([name]) => name);
  for (const e of await readdir(to, { withFileTypes: true })) {
    const want = wanted.get(e.name);
    const ok =
      want === SCOPE ? e.isDirectory() : want !== undefined && e.isSymbolicLink() && (await readlink(path.join(to, e.name))) === want;
    if (!ok) await rm(path.join(to, e.name), { recursive: true, force: true });
    else if (want !== SCOPE) wanted.delete(e.name);
  }
  for (const [name, want] of wanted) {
    if (want === SCOPE) await linkPackages(root, copy, path.posix.join(rel, name), linked);
    else await symlink(want, path.join(to, name));
  }
  // After the scope folders: making one moves this folder's times too.
  linked.set(rel, { from: fromStamp, to: await folderStamp(to, false), scopes });
}

/** Where the copy's link to the workspace's entry `abs` points: the entry, or for a link into the workspace's own tree, that place in the copy. */
async function linkTarget(root: string, copy: string, abs: string, isLink: boolean): Promise<string> {
  if (!isLink) return abs;
  const target = path.resolve(path.dirname(abs), await readlink(abs));
  const inTree = isInside(root, target) && !path.relative(root, target).split(path.sep).includes('node_modules');
  return inTree ? path.join(copy, path.relative(root, target)) : abs;
}
