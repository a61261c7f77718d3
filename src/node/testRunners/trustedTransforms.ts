import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { ProcessJail } from '../sandbox/processJail';
import type { KeptTransforms } from './keptTransforms';

/** More files than this in one warm-up, and only the first ones (the test files) are compiled ahead. */
export const MAX_FILES = 500;
const WARM_TIMEOUT_MS = 60_000;
/** tsxWarm.cjs's first argument when the tests will run under V8's coverage (NODE_V8_COVERAGE). */
export const V8_COVERAGE_FLAG = '--v8-coverage';

export interface TrustedTransformsOptions {
  /** dist/tsxWarm.cjs. */
  script: string;
  nodePath: string;
  /** The run's jail; its sandbox must be on (see below). */
  jail: ProcessJail;
  /** The cache kept between runs (keptTransforms.ts): restored before the first warm-up, kept after each. */
  kept?: KeptTransforms;
}

/**
 * tsx's cache of compiled TypeScript, filled by a process that runs none of the code it compiles
 * (tsxWarm.cjs), and seen read-only by the test commands.
 *
 * Each test file runs in a process of its own, and a process that finds a file uncached starts
 * esbuild to compile it: a few tenths of a second, again in every process. A cache the test
 * processes shared would be theirs to write, and code under test could then put code of its own
 * in place of a test file's (processJail.ts says why each command's temp folder is its own).
 * This cache is written only by the warm-up, in the run's sandbox, with its own folder the only
 * one it may write; each test command finds it linked into its temp folder, where the sandbox
 * keeps it read-only. Without the sandbox nothing would keep it so, and nothing is shared.
 */
export class TrustedTransforms {
  private static readonly ofJail = new WeakMap<ProcessJail, TrustedTransforms>();

  /**
   * The jail's cache, shared by every test runner in it (the checks' and the coverage gate's,
   * which starts a runner for each measure); undefined where the jail cannot have one.
   */
  static of(jail: ProcessJail, script: string, nodePath: string, kept?: KeptTransforms): TrustedTransforms | undefined {
    if (!jail.status.on || !existsSync(script)) return undefined;
    let found = TrustedTransforms.ofJail.get(jail);
    if (!found) {
      found = new TrustedTransforms({ script, nodePath, jail, ...(kept ? { kept } : {}) });
      TrustedTransforms.ofJail.set(jail, found);
    }
    return found;
  }

  private dir: string | undefined;
  /**
   * Each file compiled into the cache, by how it was compiled, for the folder its tests start in,
   * and the digest of the bytes it was compiled from (`compiledKey`): a file the run wrote twice
   * has both in the cache, as tsx keys them by their bytes.
   */
  private readonly compiled = new Set<string>();
  private queue: Promise<void> = Promise.resolve();
  /** A warm-up that failed (this tsx cannot be loaded so): the tests compile their own from then on. */
  private failed = false;
  /** The kept cache's tag for this run (the tsx, node and folder), once it was restored. */
  private keptTag: string | undefined;

  constructor(private readonly o: TrustedTransformsOptions) {}

  /** The folder whose entries each test command sees in its temp folder, once something was compiled. */
  get seed(): string | undefined {
    return this.dir && path.join(this.dir, 'tmp');
  }

  /**
   * Compiles into the cache the files not compiled yet from these bytes, the first ones first
   * (the run's test files), as tsx would compile them for a test process started in `cwd`. A
   * warm-up that fails costs the test processes only their own compiling.
   */
  warm(tsxCjs: string, cwd: string, sources: Iterable<readonly [string, Buffer]>, signal: AbortSignal, v8Coverage = false): Promise<void> {
    const next = this.queue.then(() => this.warmNow(tsxCjs, cwd, sources, signal, v8Coverage));
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async warmNow(
    tsxCjs: string,
    cwd: string,
    sources: Iterable<readonly [string, Buffer]>,
    signal: AbortSignal,
    v8Coverage: boolean,
  ): Promise<void> {
    // tsx's key holds the tsconfig it found from where the tests start: a file is compiled per
    // folder. It holds its options too, which differ in a process under V8's coverage (the
    // coverage gate's measure): there, a file compiled without them would be a miss, and each
    // test process would start esbuild to compile it again.
    const variant = v8Coverage ? 'v8' : '';
    const fresh = new Map<string, string>();
    for (const [file, bytes] of sources) {
      const key = `${variant}\0${cwd}\0${file}`;
      const digest = createHash('sha256').update(bytes).digest('hex');
      if (!this.compiled.has(`${key}\0${digest}`) && !fresh.has(file)) fresh.set(file, digest);
      if (fresh.size >= MAX_FILES) break;
    }
    if (!fresh.size || signal.aborted || this.failed) return;
    // In the jail's private folder: no command may write there, and it goes with the jail.
    if (!this.dir) {
      this.dir = this.o.jail.folderOfItsOwn('transforms');
      mkdirSync(path.join(this.dir, 'tmp'), { recursive: true });
      // What an earlier run compiled from the same bytes needs no compiling again.
      if (this.o.kept) {
        this.keptTag = tagOf(tsxCjs, this.o.nodePath, this.o.jail.root);
        for (const key of await this.o.kept.restore(path.join(this.dir, 'tmp'), this.keptTag)) this.compiled.add(key);
        for (const [file, digest] of [...fresh]) if (this.compiled.has(`${variant}\0${cwd}\0${file}\0${digest}`)) fresh.delete(file);
        if (!fresh.size) return;
      }
    }
    const flags = v8Coverage ? [V8_COVERAGE_FLAG] : [];
    const run = await this.o.jail.run(this.o.nodePath, [this.o.script, ...flags, tsxCjs, path.join(this.dir, 'tmp'), ...fresh.keys()], {
      cwd,
      writable: [this.dir],
      // It compiles the workspace's files and writes only its cache.
      readOnly: [this.o.jail.root],
      timeoutMs: WARM_TIMEOUT_MS,
      signal,
      tailChars: 2000,
    });
    if (run.exitCode === 0 && !run.stopped) {
      for (const [file, digest] of fresh) this.compiled.add(`${variant}\0${cwd}\0${file}\0${digest}`);
      // Kept behind the warm-up, not before the tests: the next warm-up waits for it, the tests do not.
      const { kept } = this.o;
      const tag = this.keptTag;
      if (kept && tag === tagOf(tsxCjs, this.o.nodePath, this.o.jail.root)) {
        const seed = path.join(this.dir, 'tmp');
        const compiled = new Set(this.compiled);
        this.queue = this.queue.then(() => kept.keep(seed, tag, compiled));
        this.o.jail.finishBeforeDispose(this.queue);
      }
    } else if (run.stopped !== 'abort') this.failed = true;
  }
}

/**
 * What a kept cache was compiled for: tsx (its loader's path and its version), node, and the
 * folder the tests run in, whose paths are in tsx's keys. Any other, and nothing kept would be
 * found: it is not restored.
 */
function tagOf(tsxCjs: string, nodePath: string, root: string): string {
  let version = '';
  for (let dir = path.dirname(tsxCjs); dir !== path.dirname(dir); dir = path.dirname(dir)) {
    try {
      const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name?: unknown; version?: unknown };
      if (pkg.name === 'tsx') {
        version = String(pkg.version);
        break;
      }
    } catch {
      // No manifest here: look higher.
    }
  }
  return JSON.stringify([tsxCjs, version, nodePath, root]);
}
