import { createHash } from 'node:crypto';
import { promises as fs, type Stats } from 'node:fs';
import * as path from 'node:path';
import type { JudgingToolFile } from '../../core/schema/events';
import { parsePackageJson, type PackageJson } from '../../core/schema/packageJson';
import type { TestFramework } from '../../core/schema/testPlan';
import { isInside, realPathOr } from '../workspacePaths';

/**
 * The packages each runner judges with: the runner, its circus or reporter, the assertion
 * library and the TypeScript transformer. What they require is found from their manifests.
 */
const SEEDS: Record<TestFramework, readonly string[]> = {
  'node:test': ['tsx'],
  mocha: ['mocha', 'tsx', 'chai', 'ts-node'],
  vitest: ['vitest', 'vite', '@vitest/expect', '@vitest/runner', '@vitest/coverage-v8', '@vitest/coverage-istanbul'],
  jest: [
    'jest',
    'jest-circus',
    'jest-runner',
    'jest-runtime',
    'jest-environment-node',
    'jest-environment-jsdom',
    'expect',
    'ts-jest',
    'babel-jest',
    '@jest/globals',
  ],
};

/** What no runner loads: a change here changes no verdict, and recording it would only cost. */
const NOT_LOADED = /\.(md|markdown|txt|map|d\.[cm]?ts|flow)$|^(license|licence|readme|changelog|history|authors|notice)(\.|$)/i;
/** The caches the runners write into node_modules while testing (vite's, babel's): rebuilt, never installed code. */
const CACHES = new Set(['.vite', '.vite-temp', '.cache', '.package-lock.json']);
/** A kept copy is at most this large; a larger file is only hashed, and a change to it cannot be put back. */
const MAX_COPY_BYTES = 4 * 1024 * 1024;
/** What the copies may hold in all: the jest closure of a real project is about 30 MB with TypeScript. */
const DEFAULT_COPY_BUDGET = 128 * 1024 * 1024;
/** How many files are looked at at once. */
const AT_ONCE = 64;

interface RecordedFile {
  /** Where it is read and written (links resolved). */
  real: string;
  /** As the report names it: from the workspace root, through node_modules. */
  shown: string;
  ino: number;
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  mode: number;
  sha256: string;
  /** The bytes to put back, when within the budget. */
  copy: Buffer | null;
}

interface RecordedDir {
  real: string;
  shown: string;
  /** Its entries as recorded; a new one (a file that shadows a module, a planted package) is a change. */
  names: Set<string>;
}

/** What a look found changed, each with whether it was put back. */
export interface ToolChange extends JudgingToolFile {
  restored: boolean;
}

export interface JudgingToolsOptions {
  /**
   * The OS sandbox is on: only what a sandboxed command can write is recorded and looked at (the
   * workspace's own packages but the runners', which the sandbox mounts read-only); the sandbox
   * keeps every other file of the tools as installed.
   */
  sandboxed: boolean;
  /** The folders the runners are found from after the workspace (the extension's own, for tsx). */
  fallbackDirs?: readonly string[];
  /** The packages a sandboxed command cannot write (the sandbox's read-only mounts). */
  readOnly?: readonly string[];
  /** Bytes the copies may hold; 128 MiB by default. */
  copyBudget?: number;
}

/**
 * The installed files of the tools that judge a run's tests. A command whose code under test
 * patched one (an installed package the circus calls every test through) would leave every
 * later command judged by the attacker's runner: the side-effect guard fails the command that
 * wrote, and this keeps the run from passing on what it left.
 *
 * Before a framework's first command, its tools' files are recorded: each one's hash, stat and,
 * within a budget, its bytes; each of their folders' entries. Every look after compares stats
 * (a write always moves the change time, which no process can set back), hashes what moved, and
 * puts back from the copy what differs, checking the put-back against the hash. A change that
 * could not be put back stays on the list: no later result of the run counts.
 */
export class JudgingTools {
  private readonly files = new Map<string, RecordedFile>();
  private readonly dirs = new Map<string, RecordedDir>();
  private readonly recorded = new Set<TestFramework>();
  private readonly recordedPackages = new Set<string>();
  private copyBytes = 0;
  private readonly unrestored = new Map<string, ToolChange>();
  /** Counts the looks that found a change: a command that saw it move while it ran is void too. */
  private changes = 0;
  /** Looks run one at a time: two at once would each put back half. */
  private queue: Promise<unknown> = Promise.resolve();
  private readonly realRoot: string;

  constructor(
    private readonly root: string,
    private readonly options: JudgingToolsOptions,
  ) {
    this.realRoot = realPathOr(root);
  }

  /** How many looks so far found a change. */
  get changeCount(): number {
    return this.changes;
  }

  /** What is recorded: files, and the bytes hashed and kept (for the cost a command pays, `npm run bench`). */
  size(): { files: number; bytes: number; copied: number } {
    let bytes = 0;
    for (const f of this.files.values()) bytes += f.size;
    return { files: this.files.size, bytes, copied: this.copyBytes };
  }

  /** The packages recorded, as the report names their folders. */
  packages(): string[] {
    return [...this.recordedPackages].sort();
  }

  /** The changes no look could put back, as the run recorded those files. */
  unrestoredFiles(): JudgingToolFile[] {
    return [...this.unrestored.values()].map(({ path: p, change, sha256 }) => ({ path: p, change, sha256 }));
  }

  /** Records `framework`'s tools, once: before its first command, so before any code under test ran. */
  record(framework: TestFramework, fromDirs: readonly string[]): Promise<void> {
    return this.serial(async () => {
      if (this.recorded.has(framework)) return;
      this.recorded.add(framework);
      // In the sandbox, a package outside the workspace is written by no command, and what it requires
      // resolves from its own folder, outside too: neither is looked at.
      const follow = (dir: string) => !this.options.sandboxed || isInside(this.realRoot, dir);
      const packages = await closureOf(SEEDS[framework], [...fromDirs, ...(this.options.fallbackDirs ?? [])], follow);
      for (const dir of packages) {
        if (this.watched(dir)) await this.recordPackage(dir);
        // A read-only package's folder of packages may still be writable (the runners write their
        // caches there): a file planted in it beside a package (`esbuild.js`) is loaded before it.
        else await this.recordHolders(dir);
      }
    });
  }

  /** Looks at every recorded file and folder, puts back what changed, and says what that was. */
  look(): Promise<ToolChange[]> {
    return this.serial(async () => {
      const found: ToolChange[] = [];
      await each([...this.files.values()], async (f) => {
        const change = await this.lookAtFile(f);
        if (change) found.push(change);
      });
      await each([...this.dirs.values()], async (d) => void found.push(...(await this.lookAtDir(d))));
      // What stays changed is found by every look: one that no longer finds it finds it as recorded (reinstalled).
      this.unrestored.clear();
      for (const c of found) if (!c.restored) this.unrestored.set(c.path, c);
      // One that stays changed is found at every look, and each command it saw is void.
      if (found.length || this.unrestored.size) this.changes++;
      return found.sort((a, b) => a.path.localeCompare(b.path));
    });
  }

  private serial<T>(work: () => Promise<T>): Promise<T> {
    const next = this.queue.then(work, work);
    this.queue = next.catch(() => undefined);
    return next;
  }

  /** Whether a sandboxed command could write here: inside the workspace, and not one of its read-only mounts. */
  private watched(real: string): boolean {
    if (!this.options.sandboxed) return true;
    if (!isInside(this.realRoot, real)) return false;
    return !(this.options.readOnly ?? []).some((p) => isInside(realPathOr(p), real));
  }

  /** A path as the report names it: from the workspace root, or from the first node_modules on it. */
  private shown(real: string): string {
    if (isInside(this.realRoot, real)) return path.relative(this.realRoot, real).split(path.sep).join('/');
    const parts = real.split(path.sep);
    const at = parts.indexOf('node_modules');
    return at >= 0 ? parts.slice(at).join('/') : real.split(path.sep).join('/');
  }

  /** The node_modules folder a package was found in (and its scope's): a new `<name>.js` there would be loaded before it. */
  private async recordHolders(dir: string): Promise<void> {
    const parent = path.dirname(dir);
    const holder = path.basename(parent).startsWith('@') ? path.dirname(parent) : parent;
    for (const folder of new Set([holder, parent])) if (this.watched(folder)) await this.recordDir(folder);
  }

  private async recordPackage(dir: string): Promise<void> {
    this.recordedPackages.add(this.shown(dir));
    await this.recordHolders(dir);
    const walk = async (d: string): Promise<void> => {
      await this.recordDir(d);
      const entries = await fs.readdir(d, { withFileTypes: true }).catch(() => []);
      const files: string[] = [];
      for (const e of entries) {
        const abs = path.join(d, e.name);
        // A package's own node_modules holds packages, recorded when something requires them.
        if (e.isDirectory() && e.name !== 'node_modules') await walk(abs);
        else if (!e.isDirectory() && !NOT_LOADED.test(e.name)) files.push(abs);
      }
      await each(files, (f) => this.recordFile(f));
    };
    await walk(dir);
  }

  private async recordDir(real: string): Promise<void> {
    if (this.dirs.has(real)) return;
    const names = await fs.readdir(real).catch(() => null);
    if (names) this.dirs.set(real, { real, shown: this.shown(real), names: new Set(names) });
  }

  private async recordFile(real: string): Promise<void> {
    if (this.files.has(real)) return;
    const st = await fs.lstat(real).catch(() => undefined);
    if (!st?.isFile()) return;
    const bytes = await fs.readFile(real).catch(() => undefined);
    if (!bytes) return;
    const budget = this.options.copyBudget ?? DEFAULT_COPY_BUDGET;
    const keep = bytes.length <= MAX_COPY_BYTES && this.copyBytes + bytes.length <= budget;
    if (keep) this.copyBytes += bytes.length;
    this.files.set(real, { real, shown: this.shown(real), ...statOf(st), sha256: sha256(bytes), copy: keep ? bytes : null });
  }

  private async lookAtFile(f: RecordedFile): Promise<ToolChange | undefined> {
    const st = await fs.lstat(f.real).catch(() => undefined);
    if (st?.isFile() && sameStat(f, st)) return undefined;
    if (st?.isFile()) {
      // Touched, or rewritten with the same bytes: as recorded, from now on with this stat.
      const bytes = await fs.readFile(f.real).catch(() => undefined);
      if (bytes && sha256(bytes) === f.sha256) {
        Object.assign(f, statOf(st));
        return undefined;
      }
    }
    const change = st ? 'modified' : 'deleted';
    return { path: f.shown, change, sha256: f.sha256, restored: await this.putBack(f) };
  }

  /** Puts the recorded bytes back in place of whatever is there, and checks them against the hash. */
  private async putBack(f: RecordedFile): Promise<boolean> {
    if (!f.copy) return false;
    try {
      // A link or folder planted in its place is replaced, never written through.
      await fs.rm(f.real, { force: true, recursive: true });
      await fs.mkdir(path.dirname(f.real), { recursive: true });
      await fs.writeFile(f.real, f.copy, { flag: 'wx' });
      await fs.chmod(f.real, f.mode & 0o7777);
      const st = await fs.lstat(f.real);
      if (sha256(await fs.readFile(f.real)) !== f.sha256) return false;
      Object.assign(f, statOf(st));
      return true;
    } catch {
      return false;
    }
  }

  /** Entries that were not there when recorded: each removed, with what it held. */
  private async lookAtDir(d: RecordedDir): Promise<ToolChange[]> {
    const names = await fs.readdir(d.real).catch(() => null);
    // A folder gone: its files are each found deleted and put back.
    if (!names) return [];
    const out: ToolChange[] = [];
    for (const name of names) {
      if (d.names.has(name) || CACHES.has(name) || NOT_LOADED.test(name)) continue;
      const abs = path.join(d.real, name);
      const restored = await fs.rm(abs, { recursive: true, force: true }).then(
        () => true,
        () => false,
      );
      out.push({ path: this.shown(abs), change: 'created', sha256: null, restored });
    }
    return out;
  }
}

/**
 * Which of `files` differ from their recorded hash now: `resume`'s check, in a process that
 * recorded nothing itself. A file recorded as absent must still be absent.
 */
export async function stillChanged(root: string, files: readonly JudgingToolFile[]): Promise<JudgingToolFile[]> {
  const out: JudgingToolFile[] = [];
  for (const f of files) {
    const abs = path.isAbsolute(f.path) ? f.path : path.join(root, f.path);
    const bytes = await fs.readFile(abs).catch(() => null);
    const now = bytes === null ? null : sha256(bytes);
    if (now !== f.sha256) out.push(f);
  }
  return out;
}

/**
 * The real folders of the packages named, found from `dirs` as Node finds them, and of every
 * package they depend on, found from the depending package's own folder: the runner's own
 * resolution, as its `require` calls will make it. A folder `follow` refuses is left out, with
 * what only it requires.
 */
async function closureOf(names: readonly string[], dirs: readonly string[], follow: (dir: string) => boolean): Promise<string[]> {
  const seen = new Set<string>();
  const queue: string[] = [];
  for (const name of names) {
    const found = await resolvePackage(name, dirs);
    if (found) queue.push(found);
  }
  while (queue.length) {
    const dir = queue.pop()!;
    if (seen.has(dir) || !follow(dir)) continue;
    seen.add(dir);
    const manifest: PackageJson = await fs.readFile(path.join(dir, 'package.json'), 'utf8').then(parsePackageJson, () => ({}));
    const deps = Object.keys({ ...manifest.dependencies, ...manifest.optionalDependencies, ...manifest.peerDependencies });
    for (const dep of deps) {
      const found = await resolvePackage(dep, [dir]);
      if (found && !seen.has(found)) queue.push(found);
    }
  }
  return [...seen].sort();
}

/** `node_modules/<name>` in the first of `dirs` or a folder above it that has one, its links resolved. */
async function resolvePackage(name: string, dirs: readonly string[]): Promise<string | undefined> {
  for (const start of dirs) {
    for (let dir = start; ; dir = path.dirname(dir)) {
      const candidate = path.join(dir, 'node_modules', name);
      if (
        await fs.stat(path.join(candidate, 'package.json')).then(
          () => true,
          () => false,
        )
      )
        return fs.realpath(candidate);
      if (path.dirname(dir) === dir) break;
    }
  }
  return undefined;
}

function statOf(st: Stats): Pick<RecordedFile, 'ino' | 'size' | 'mtimeMs' | 'ctimeMs' | 'mode'> {
  return { ino: st.ino, size: st.size, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, mode: st.mode };
}

function sameStat(f: RecordedFile, st: Stats): boolean {
  return f.ino === st.ino && f.size === st.size && f.mtimeMs === st.mtimeMs && f.ctimeMs === st.ctimeMs && f.mode === st.mode;
}

function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** `work` over `items`, `AT_ONCE` at a time. */
async function each<T>(items: readonly T[], work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(AT_ONCE, items.length) }, lane));
}
