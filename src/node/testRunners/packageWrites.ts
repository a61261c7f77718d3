import { watch, promises as fs, type FSWatcher } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

/**
 * What the runners themselves write into node_modules while testing: vite's cache (vitest's
 * results among it), vite's bundled configs, the cache folder babel and others share. Their
 * contents are rebuilt by the tools and never taken as installed code.
 */
const CACHES = new Set(['.vite', '.vite-temp', '.cache']);

/** A write into an installed package, by the path from the workspace root. */
export interface PackageWrite {
  path: string;
  change: 'created' | 'modified' | 'deleted';
}

/**
 * Watches the workspace's installed packages (each `node_modules` folder the side-effect guard
 * skips) for writes while tests run. A dependency patched in place, or a package planted beside
 * the others, runs later wherever the user's app loads it, outside any sandbox, and changes
 * what every later test run of the run judges. The sandbox makes only the runners' own packages
 * read-only: a mount per package cost about two seconds a command at 500 packages, measured.
 *
 * Keeping the bytes to put back would mean reading every installed file, so a write is found,
 * not undone: the test run cannot pass and the user is told to reinstall. Found by the file
 * system's change notifications (inotify on Linux, one watch per folder, set up once for the
 * run: about 0.4 s for 3,500 folders), which see every write whatever its process, inside the
 * sandbox's mounts too. Where a watch cannot be set (the system's watch limit), the files'
 * change times are compared instead: a process can set a file's mtime back, never its ctime.
 */
export class PackageWatch {
  private readonly watchers = new Map<string, FSWatcher>();
  private readonly seen = new Map<string, 'rename' | 'change'>();
  /** The node_modules folders asked for, for the change-time comparison. */
  private readonly roots = new Set<string>();
  /** Set when notifications cannot be trusted: each look then compares change times from here. */
  private scanSince: number | undefined;

  /** With `notifications: false`, change times are compared from the start (as where the system has no watch left). */
  constructor(
    private readonly root: string,
    options: { notifications?: boolean } = {},
  ) {
    if (options.notifications === false) this.scanSince = 0;
  }

  /** Watches `dir` (a node_modules folder) and every folder below it but the caches, once. */
  async add(dir: string): Promise<void> {
    if (this.roots.has(dir)) return;
    this.roots.add(dir);
    if (this.scanSince === 0) this.scanSince = await markTime();
    if (this.scanSince !== undefined) return;
    try {
      if (process.platform === 'darwin' || process.platform === 'win32') this.watchOne(dir, true);
      else await this.watchTree(dir, true);
    } catch {
      // Out of watches (ENOSPC) or a folder gone mid-walk: compare change times from now on.
      this.scanSince = await markTime();
      this.close();
    }
  }

  /** The writes since the last call, each path once. */
  async take(): Promise<PackageWrite[]> {
    // Notifications of a process that just ended are read by the event loop's next poll.
    await new Promise((r) => setTimeout(r, 20));
    const writes: PackageWrite[] = [];
    for (const [rel, kind] of this.seen) {
      const there = await fs.lstat(path.join(this.root, rel)).then(
        () => true,
        () => false,
      );
      writes.push({ path: rel, change: kind === 'change' ? 'modified' : there ? 'created' : 'deleted' });
    }
    this.seen.clear();
    if (this.scanSince !== undefined) {
      const since = this.scanSince;
      this.scanSince = await markTime();
      writes.push(...(await this.changedSince(since)));
    }
    return writes.sort((a, b) => a.path.localeCompare(b.path));
  }

  dispose(): void {
    this.close();
  }

  private close(): void {
    for (const w of this.watchers.values()) w.close();
    this.watchers.clear();
  }

  private async watchTree(dir: string, top: boolean): Promise<void> {
    this.watchOne(dir, false);
    for (const e of await fs.readdir(dir, { withFileTypes: true })) {
      // A linked package lives outside this folder: the sandbox keeps writes to it out.
      if (e.isDirectory() && !(top && CACHES.has(e.name))) await this.watchTree(path.join(dir, e.name), false);
    }
  }

  private watchOne(dir: string, recursive: boolean): void {
    const rel = (name: string) => path.relative(this.root, path.join(dir, name)).split(path.sep).join('/');
    const w = watch(dir, { persistent: false, recursive }, (kind, name) => {
      if (name === null) return void this.seen.set(rel(''), 'rename');
      const r = rel(name.toString());
      if (inCache(r)) return;
      if (!(kind === 'change' && this.seen.get(r) === 'rename')) this.seen.set(r, kind);
    });
    // A watch that fails (its folder removed, the queue overflowed) means writes may be unseen.
    w.on('error', () => this.seen.set(rel(''), 'change'));
    this.watchers.set(dir, w);
  }

  /** Files and folders under the watched node_modules whose change time is after `since`. */
  private async changedSince(since: number): Promise<PackageWrite[]> {
    const out: PackageWrite[] = [];
    const walk = async (dir: string, top: boolean): Promise<void> => {
      for (const e of await fs.readdir(dir, { withFileTypes: true }).catch(() => [])) {
        if (top && CACHES.has(e.name)) continue;
        const abs = path.join(dir, e.name);
        const st = await fs.lstat(abs).catch(() => undefined);
        if (st && st.ctimeMs > since) out.push({ path: path.relative(this.root, abs).split(path.sep).join('/'), change: 'modified' });
        if (e.isDirectory()) await walk(abs, false);
      }
    };
    for (const dir of this.roots) await walk(dir, true);
    return out;
  }
}

/** Whether a path lies in (or is) a cache folder at the top of its node_modules. */
function inCache(rel: string): boolean {
  const parts = rel.split('/');
  const at = parts.lastIndexOf('node_modules');
  return at >= 0 && CACHES.has(parts[at + 1] ?? '');
}

/** Now, on the file system's clock: the change time of a file just written. */
async function markTime(): Promise<number> {
  const dir = await fs.mkdtemp(path.join(tmpdir(), 'ticket-runner-mark-'));
  try {
    const file = path.join(dir, 'mark');
    await fs.writeFile(file, '');
    return (await fs.lstat(file)).ctimeMs;
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}
