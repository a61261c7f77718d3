import { createHash } from 'node:crypto';
import { constants, createReadStream, mkdtempSync, promises as fs, rmSync, type BigIntStats } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { GIT_WATCHED, SKIPPED } from '../workspace/treeSkips';
import { stampOf, walkTree, type Stamp } from '../workspace/treeWalk';
import { PackageWatch } from './packageWrites';

/** The paths of what git or the editor runs code from: GIT_WATCHED, and the workspace's editor settings. */
const RUNS_CODE_LATER = [...GIT_WATCHED.map((name) => `.git/${name}`), '.vscode'];

/**
 * Whether a workspace path is one that git or the editor runs code from, outside any sandbox: a
 * hook (the next commit), `.git/config` (`core.fsmonitor`, at the next `git status`), `.vscode/`
 * (a task that runs when the folder opens). A test run that changed one cannot pass, even with
 * the change put back: nothing a test needs writes there.
 */
export function runsCodeLater(rel: string): boolean {
  return RUNS_CODE_LATER.some((p) => rel === p || rel.startsWith(`${p}/`));
}
/** Files up to this size are kept in memory; larger ones are copied to a snapshot folder. */
export const MAX_IN_MEMORY_BYTES = 4 * 1024 * 1024;
/** What the snapshot folder may hold in all; a larger file is watched, and a change to it cannot be put back. */
const DEFAULT_SNAPSHOT_BUDGET = 1024 * 1024 * 1024;

export interface SideEffect {
  /** A file, or a folder (ending in `/`) that the run created with everything in it. */
  path: string;
  change: 'created' | 'modified' | 'deleted';
  /** False: the workspace still holds the change, and the test run cannot count. */
  restored: boolean;
}

/**
 * Whether a side effect's path lies in the installed packages (a write there is found, never put
 * back), or is a node_modules folder or link itself (one replaced would decide what loads next).
 */
export function inInstalledPackages(rel: string): boolean {
  return /(^|\/)node_modules(\/|$)/.test(rel);
}

export interface SideEffectGuardOptions {
  /** Bytes of large files the snapshot folder may hold; 1 GiB by default. */
  snapshotBudget?: number;
  /**
   * With the OS sandbox on: where its runtime may have left its own empty mount points in the
   * workspace (`runtimeMountPoints`), relative to it. One still empty is not looked at: the
   * runtime makes and removes them as other sandboxes of the process come and go, and no
   * sandboxed command can write there. Anything in one is looked at as ever.
   */
  runtimeMountPoints?: () => Promise<string[]>;
  /**
   * For a copy of a workspace whose node_modules entries link to the workspace's packages
   * (testTree.ts): that workspace. Its node_modules folders are watched for writes too, as
   * the copy's own would be: a command without the sandbox reaches its packages through the links.
   */
  packagesOf?: string;
}

interface Seen {
  /** The file's stamp: one unchanged since the last look is not read again. */
  stamp: Stamp;
  size: number;
  mode: number;
  /** A symbolic link's target. */
  link?: string;
  /** The file's bytes, when small enough to keep in memory. */
  content: Buffer | null;
  /** The sha256 of the bytes, for a large file (kept on disk, or only hashed). */
  digest?: string;
  /** A large file's copy in the snapshot folder. */
  snapshot?: string;
}

interface Tree {
  files: Map<string, Seen>;
  /** Every folder, with its mode. */
  dirs: Map<string, number>;
}

/**
 * What a test run did to the workspace besides running: the tree is looked at before and after
 * each run (mtime, ctime and size, then the bytes of what differs), and every file and folder
 * the run created, changed or deleted is put back as it was and reported. Small files are kept
 * in memory; large ones are copied to a snapshot folder outside the workspace (a reflink where
 * the file system has them, a plain copy elsewhere: never a hard link, which an in-place write
 * would change with the original). What cannot be put back is reported as such, and the test
 * runner fails the run. With the OS sandbox on, this catches writes inside the workspace;
 * without it, it is what keeps the rendered tests and the scope as the run left them.
 */
export class SideEffectGuard {
  /** The workspace as last seen, with what is needed to put each file back. */
  private known: Tree = { files: new Map(), dirs: new Map() };
  private snapshotDir: string | undefined;
  private snapshotBytes = 0;
  private snapshots = 0;
  private readonly packages: PackageWatch;
  /** The linked workspace's packages (`packagesOf`), named from its root as the copy's are from this one's. */
  private readonly linked: PackageWatch | undefined;
  /** The node_modules folders the last look passed by. */
  private packageDirs: string[] = [];

  constructor(
    private readonly root: string,
    private readonly options: SideEffectGuardOptions = {},
  ) {
    this.packages = new PackageWatch(root);
    this.linked = options.packagesOf === undefined ? undefined : new PackageWatch(options.packagesOf);
  }

  /** Looks at the tree before a test run; reads only the files that changed since the last look. */
  async before(): Promise<void> {
    const old = this.known.files;
    this.known = await this.look(old, undefined, true);
    // Watched from the run's first test run on. A write between two test runs is the next one's
    // to report: nothing of the run writes there, but a process an earlier test left behind may.
    for (const dir of this.packageDirs) await this.packages.add(dir);
    const linkedRoot = this.options.packagesOf;
    if (this.linked && linkedRoot !== undefined)
      for (const dir of this.packageDirs) await this.linked.add(path.join(linkedRoot, path.relative(this.root, dir)));
    // Snapshots of files that changed since (the Coder rewrote them) are kept no longer.
    const live = new Set([...this.known.files.values()].map((f) => f.snapshot));
    for (const f of old.values()) {
      if (!f.snapshot || live.has(f.snapshot)) continue;
      await fs.rm(f.snapshot, { force: true });
      this.snapshotBytes -= f.size;
    }
  }

  /** Looks again after the run, puts back what it changed, and says what that was. */
  async restore(): Promise<SideEffect[]> {
    const after = await this.look(new Map(), this.known.files, false);
    const effects: SideEffect[] = [];
    // Folder modes first: a folder the run made read-only would refuse the files put back into it.
    for (const [rel, mode] of this.known.dirs) {
      const now = after.dirs.get(rel);
      if (now !== undefined && now !== mode)
        effects.push({ path: `${rel}/`, change: 'modified', restored: await chmod(this.abs(rel), mode) });
    }
    // Folders the run created go with everything in them: nothing in there existed before.
    const created = [...after.dirs.keys()].filter((rel) => !this.known.dirs.has(rel));
    const top = created.filter((rel) => !created.some((other) => rel.startsWith(`${other}/`)));
    for (const rel of top) effects.push({ path: `${rel}/`, change: 'created', restored: await removed(this.abs(rel), true) });
    const inCreated = (rel: string) => top.some((dir) => rel.startsWith(`${dir}/`));
    for (const [rel, now] of after.files) {
      const was = this.known.files.get(rel);
      if (!was) {
        if (!inCreated(rel)) effects.push({ path: rel, change: 'created', restored: await removed(this.abs(rel), false) });
      } else if (!same(was, now)) effects.push({ path: rel, change: 'modified', restored: await this.put(rel, was) });
    }
    for (const [rel, was] of this.known.files) {
      if (!after.files.has(rel)) effects.push({ path: rel, change: 'deleted', restored: await this.put(rel, was) });
    }
    // Folders the run deleted come back with their mode (putting files back made some of them already).
    for (const [rel, mode] of [...this.known.dirs].sort(([a], [b]) => a.length - b.length)) {
      if (after.dirs.has(rel)) continue;
      const ok = await fs.mkdir(this.abs(rel), { recursive: true }).then(
        () => chmod(this.abs(rel), mode),
        () => false,
      );
      effects.push({ path: `${rel}/`, change: 'deleted', restored: ok });
    }
    const linked = (await this.linked?.take()) ?? [];
    for (const w of [...(await this.packages.take()), ...linked]) effects.push({ ...w, restored: false });
    return effects.sort((a, b) => a.path.localeCompare(b.path));
  }

  /** The bytes of each file of the last look that were kept in memory (the small ones), by path from the root. */
  keptFiles(): Map<string, Buffer> {
    const out = new Map<string, Buffer>();
    for (const [rel, f] of this.known.files) if (f.content) out.set(rel, f.content);
    return out;
  }

  /** Removes the snapshot folder. */
  dispose(): void {
    this.packages.dispose();
    this.linked?.dispose();
    if (this.snapshotDir) rmSync(this.snapshotDir, { recursive: true, force: true });
    this.snapshotDir = undefined;
    this.snapshotBytes = 0;
  }

  private abs(rel: string): string {
    return path.join(this.root, rel);
  }

  /**
   * The tree now. A file whose stat matches `reuse` (or `compare`) keeps what was kept of it
   * unread. With `keep`, a large file is copied to the snapshot folder; without, only hashed.
   */
  private async look(reuse: Map<string, Seen>, compare: Map<string, Seen> | undefined, keep: boolean): Promise<Tree> {
    const tree: Tree = { files: new Map(), dirs: new Map() };
    const { entries, skipped } = await walkTree(this.root, { skip: SKIPPED, gitWatched: true, changing: true });
    const packageDirs: string[] = [];
    for (const [rel, st] of skipped) {
      // A copy's node_modules is a link to the workspace's (testTree.ts): watched as the packages it is, and looked at as a link.
      if (path.posix.basename(rel) === 'node_modules' && (st.isDirectory() || st.isSymbolicLink())) packageDirs.push(this.abs(rel));
      // Only a folder of a skipped name is left out: a link or a file in its place (a `.git` file naming another git folder) is looked at.
      if (!st.isDirectory()) entries.set(rel, st);
    }
    for (const rel of new Set(await this.options.runtimeMountPoints?.())) {
      const st = entries.get(rel);
      if (st && (await stillEmpty(this.abs(rel), st))) entries.delete(rel);
    }
    for (const [rel, st] of entries) {
      if (st.isDirectory()) {
        tree.dirs.set(rel, Number(st.mode));
        continue;
      }
      const prior = reuse.get(rel) ?? compare?.get(rel);
      const stamp = stampOf(st);
      if (prior?.stamp === stamp) {
        tree.files.set(rel, prior);
        continue;
      }
      const stat = { stamp, size: Number(st.size), mode: Number(st.mode) };
      if (st.isSymbolicLink()) tree.files.set(rel, { ...stat, link: await fs.readlink(this.abs(rel)), content: null });
      else if (st.isFile()) tree.files.set(rel, { ...stat, ...(await this.read(this.abs(rel), stat.size, keep)) });
    }
    this.packageDirs = packageDirs;
    return tree;
  }

  /** What is kept of a file: its bytes, or a large file's digest and (with `keep`) its snapshot. */
  private async read(abs: string, size: number, keep: boolean): Promise<Pick<Seen, 'content' | 'digest' | 'snapshot'>> {
    if (size <= MAX_IN_MEMORY_BYTES) return { content: await fs.readFile(abs).catch(() => null) };
    if (!keep || this.snapshotBytes + size > (this.options.snapshotBudget ?? DEFAULT_SNAPSHOT_BUDGET)) {
      return { content: null, digest: await digestOf(abs).catch(() => undefined) };
    }
    this.snapshotDir ??= mkdtempSync(path.join(tmpdir(), 'ticket-runner-snapshots-'));
    const snapshot = path.join(this.snapshotDir, String(++this.snapshots));
    try {
      await fs.copyFile(abs, snapshot, constants.COPYFILE_FICLONE);
    } catch {
      return { content: null };
    }
    this.snapshotBytes += size;
    // The digest is of the copy: what will be put back is exactly what was compared.
    return { content: null, snapshot, digest: await digestOf(snapshot) };
  }

  private async put(rel: string, was: Seen): Promise<boolean> {
    const abs = this.abs(rel);
    // Nothing is touched unless the file can be put back whole: a change that stays is reported, not made worse.
    const restorable =
      was.link !== undefined ||
      was.content !== null ||
      (was.snapshot !== undefined && was.digest !== undefined && (await digestOf(was.snapshot).catch(() => null)) === was.digest);
    if (!restorable) return false;
    try {
      await fs.mkdir(path.dirname(abs), { recursive: true });
      // A link planted in its place is replaced, never written through.
      await fs.rm(abs, { force: true, recursive: true });
      if (was.link !== undefined) await fs.symlink(was.link, abs);
      else {
        if (was.content) await fs.writeFile(abs, was.content, { mode: 0o600, flag: 'wx' });
        else await fs.copyFile(was.snapshot!, abs, constants.COPYFILE_EXCL | constants.COPYFILE_FICLONE);
        // Set apart from the write: a mode given at creation is cut by the umask.
        await fs.chmod(abs, was.mode & 0o7777);
      }
      // The file is as it was: the next look need not read it again.
      const st = await fs.lstat(abs, { bigint: true });
      this.known.files.set(rel, { ...was, stamp: stampOf(st), mode: Number(st.mode) });
      return true;
    } catch {
      return false;
    }
  }
}

/** Same file: equal stat, or (a touch, a rewrite with the same bytes) equal content. */
function same(a: Seen, b: Seen): boolean {
  if (a === b) return true;
  if (a.link !== undefined || b.link !== undefined) return a.link === b.link;
  if (a.mode !== b.mode || a.size !== b.size) return false;
  if (a.content && b.content) return a.content.equals(b.content);
  // A large file: its digest, when both looks could take one.
  return a.digest !== undefined && a.digest === b.digest;
}

/** An empty file, or a folder with nothing in it: what the sandbox runtime mounts over. */
async function stillEmpty(abs: string, st: BigIntStats): Promise<boolean> {
  if (st.isFile()) return st.size === 0n;
  return st.isDirectory() && (await fs.readdir(abs).catch(() => ['?'])).length === 0;
}

async function removed(abs: string, recursive: boolean): Promise<boolean> {
  return fs.rm(abs, { force: true, recursive }).then(
    () => true,
    () => false,
  );
}

async function chmod(abs: string, mode: number): Promise<boolean> {
  return fs.chmod(abs, mode & 0o7777).then(
    () => true,
    () => false,
  );
}

function digestOf(file: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const h = createHash('sha256');
    createReadStream(file)
      .on('data', (chunk) => h.update(chunk))
      .on('end', () => resolve(h.digest('hex')))
      .on('error', reject);
  });
}
