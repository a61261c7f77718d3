import type { ChildProcessByStdio } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { UserInputError } from '../../core/errors';
import type { SandboxStatus } from '../../core/ports/sandbox';
import { killGroup, runInProcessGroup, spawnGroupLeader, type GroupRunOptions, type GroupRunResult } from './processGroup';
import { childEnvironment } from './childEnv';
import { OsSandbox, statusOf } from './osSandbox';
import { freezeMarked, MARK_VAR, newRunToken, sweepMarked, thaw } from './processSweep';
import { Redactor } from './redactor';
import { startGuardian } from './runGuardian';
import { realPathOr } from '../workspacePaths';

export interface JailOptions {
  /** The folder commands may write in: the workspace, or a scratch copy of it. */
  root: string;
  /** Files and folders inside the root that no command may write (tests, tickets, the run store). */
  protect: string[];
  /** The environment the allowlist picks from: the CLI's, or the extension host's. */
  parentEnv: Readonly<Record<string, string | undefined>>;
  /** Variable names the user passes on purpose (`--pass-env`, `ticketRunner.passEnv`). */
  pass?: readonly string[];
  /** What is scrubbed from every output; by default the secret-looking values of `parentEnv`. */
  redactor?: Redactor;
  /** A sandbox that cannot start is an error (`--require-sandbox`, `ticketRunner.requireSandbox`). */
  requireSandbox?: boolean;
  /** No OS sandbox, with this reason (the bench's baseline); the allowlist and the scrub stay. */
  withoutSandbox?: string;
}

/** runInProcessGroup's options, minus what the jail decides (the environment). */
export interface JailRunOptions extends Omit<GroupRunOptions, 'env'> {
  /** Variables this command adds to the allowlisted environment (a coverage folder). */
  env?: Record<string, string>;
  /** Folders outside the root this command may write (its report folder). */
  writable?: string[];
  /** More files this command may not write (the rendered tests it runs). */
  readOnly?: string[];
  /**
   * A folder whose entries appear in the command's temp folder as links, read-only (a cache
   * that a step running no code under test filled: trustedTransforms.ts). Only in the sandbox,
   * which alone keeps the links' targets from being written; without it they are left out.
   */
  tempSeed?: string;
}

/**
 * Every process a run starts goes through here: tests, rung 4's scratch runs, the gates'
 * tsc, build and coverage. Each gets an allowlisted environment with a HOME and a temp folder
 * of its own, runs in the OS sandbox when it can start (writes only in the root and its own
 * folder, protected paths read-only, no network, secret locations unreadable), and its output
 * is scrubbed of secret values before anyone sees it.
 *
 * A command's folder is made for it and removed when it ends, never handed to the next one:
 * tools cache compiled code there (tsx, jest) under a key of the source's text, and code under
 * test that rewrote an entry would otherwise decide what a later run of an unchanged test file
 * executes, a pass whatever the code does.
 */
export class ProcessJail {
  private constructor(
    private readonly o: JailOptions,
    private readonly sandbox: OsSandbox | undefined,
    readonly status: SandboxStatus,
    readonly redactor: Redactor,
    /**
     * What the jail and its copies over other roots share: the private folder (made at the
     * first command, removed by `dispose`) that holds each live command's own `home/` and
     * `tmp/`, the run's random token every process is marked with, and the number of the last
     * command.
     */
    private readonly shared: Shared,
    private readonly owner: boolean,
  ) {}

  private get privateDir(): string {
    this.shared.path ??= privateFolder();
    return this.shared.path;
  }

  static async open(o: JailOptions): Promise<ProcessJail> {
    const started = o.withoutSandbox !== undefined ? { off: o.withoutSandbox } : await OsSandbox.start();
    const status = statusOf(started);
    if (!status.on && o.requireSandbox) {
      throw new UserInputError(
        `the sandbox is required but cannot start: ${status.detail}. On Debian or Ubuntu: apt-get install bubblewrap socat ripgrep`,
      );
    }
    return new ProcessJail(
      o,
      started instanceof OsSandbox ? started : undefined,
      status,
      o.redactor ?? Redactor.fromEnv(o.parentEnv),
      newShared(),
      true,
    );
  }

  /**
   * A jail with no OS sandbox, for adapters built without one (their own unit tests): the
   * environment is still allowlisted and the output scrubbed.
   */
  static plain(root: string, parentEnv: Readonly<Record<string, string | undefined>> = process.env): ProcessJail {
    const o: JailOptions = { root, protect: [], parentEnv, withoutSandbox: 'not wired' };
    return new ProcessJail(o, undefined, { on: false, detail: 'not wired' }, Redactor.fromEnv(parentEnv), newShared(), true);
  }

  /** The same jail over another root (rung 4's scratch copy), with that root's protected paths. */
  at(root: string, protect: string[]): ProcessJail {
    return new ProcessJail({ ...this.o, root, protect }, this.sandbox, this.status, this.redactor, this.shared, false);
  }

  get root(): string {
    return this.o.root;
  }

  /**
   * The allowlisted environment with this command's mark, and the argv that runs it in the
   * sandbox when there is one. A wrapped command must be followed by `sandbox.afterCommand()`.
   */
  private async prepare(
    command: string,
    args: string[],
    options: Pick<JailRunOptions, 'cwd' | 'env' | 'writable' | 'readOnly' | 'signal' | 'tempSeed'>,
  ): Promise<{ argv: string[]; env: Record<string, string>; mark: string; own: string }> {
    const n = ++this.shared.commands;
    const mark = `${this.shared.token}.${n}`;
    const own = commandFolder(this.privateDir, n);
    const home = path.join(own, 'home');
    const tmp = path.join(own, 'tmp');
    // Without the sandbox, what outlives a kill -9 of this process is the guardian's to end.
    if (!this.sandbox) this.shared.guardian ??= startGuardian(this.shared.token) ?? null;
    const env = { ...childEnvironment(this.o.parentEnv, { pass: this.o.pass, home, tmp }), ...options.env, [MARK_VAR]: mark };
    let argv = [command, ...args];
    if (this.sandbox) {
      if (options.tempSeed) seedTemp(options.tempSeed, tmp);
      const policy = {
        allowWrite: [this.o.root, own, ...(options.writable ?? [])].map(real),
        denyWrite: [...this.o.protect, ...(options.readOnly ?? []).map((f) => path.resolve(this.o.root, f))].map(real),
        workspace: real(this.o.root),
      };
      try {
        argv = await this.sandbox.wrap(command, args, options.cwd, policy, options.signal, { TMPDIR: tmp, TMP: tmp, TEMP: tmp });
      } catch (err) {
        removeFolder(own);
        throw err;
      }
    }
    return { argv, env, mark, own };
  }

  async run(command: string, args: string[], options: JailRunOptions): Promise<GroupRunResult> {
    const { argv, env, mark, own } = await this.prepare(command, args, options);
    try {
      const run = await runInProcessGroup(argv[0]!, argv.slice(1), { ...options, env });
      return { ...run, output: this.redactor.text(run.output), stdout: this.redactor.text(run.stdout) };
    } finally {
      // What left the process group (a detached grandchild) still carries the command's mark.
      await sweepMarked((m) => m === mark);
      // Nothing of the command is left to write in its folder.
      removeFolder(own);
      // Then the runtime's mount points go (unless another sandbox is live), before anyone looks at the workspace.
      await this.sandbox?.afterCommand();
    }
  }

  /**
   * Starts a long-lived command (the lint worker) with the same environment, sandbox and write
   * policy as `run`, its stdin and stdout piped. It lives until `stop`, its own exit, or `dispose`.
   */
  async start(
    command: string,
    args: string[],
    options: Pick<JailRunOptions, 'cwd' | 'env' | 'writable' | 'readOnly' | 'signal'>,
  ): Promise<JailedProcess> {
    const { argv, env, mark, own } = await this.prepare(command, args, options);
    let child;
    try {
      child = spawnGroupLeader(argv[0]!, argv.slice(1), { cwd: options.cwd, env, stdin: 'pipe' });
    } catch (err) {
      removeFolder(own);
      await this.sandbox?.afterCommand();
      throw err;
    }
    const proc = new JailedProcess(child, mark, () => {
      this.shared.live.delete(proc);
      // What is still running of it, the run's sweep ends; `dispose` removes the rest.
      removeFolder(own);
      const cleaned = this.sandbox?.afterCommand();
      if (!cleaned) return;
      this.shared.cleanups.add(cleaned);
      void cleaned.finally(() => this.shared.cleanups.delete(cleaned));
    });
    this.shared.live.add(proc);
    return proc;
  }

  /**
   * A folder of the jail's own, made once: its commands may read it but not write it (a command
   * may write only its own folder, and the folders its options name), and `dispose` removes it.
   */
  folderOfItsOwn(name: string): string {
    const dir = path.join(this.privateDir, name);
    mkdirSync(dir, { recursive: true });
    return dir;
  }

  /** Kills what the run started and is still alive, and every process that carries the run's mark. */
  async sweep(): Promise<void> {
    await Promise.all([...this.shared.live].map((p) => p.stop()));
    await sweepMarked((m) => m.startsWith(`${this.shared.token}.`));
  }

  /** Work that reads the private folder (a cache kept for the next run): `dispose` waits for it before removing the folder. */
  finishBeforeDispose(work: Promise<unknown>): void {
    const settled = work.then(
      () => undefined,
      () => undefined,
    );
    this.shared.cleanups.add(settled);
    void settled.then(() => this.shared.cleanups.delete(settled));
  }

  /**
   * Kills what is left of the run's processes and removes the private folder. Settles once the
   * sandbox runtime has dropped the mount points of all of them: what looks at the workspace next
   * (a batch committing the ticket's change) finds none of its own files there.
   */
  async dispose(): Promise<void> {
    if (!this.owner) return;
    await this.sweep();
    await Promise.all([...this.shared.cleanups]);
    this.shared.guardian?.stop();
    this.shared.guardian = undefined;
    if (!this.shared.path) return;
    rmSync(this.shared.path, { recursive: true, force: true });
    this.shared.path = undefined;
  }
}

interface Shared {
  path?: string;
  token: string;
  commands: number;
  live: Set<JailedProcess>;
  /** The sandbox runtime's cleanups after a long-lived process ended, not yet done. */
  cleanups: Set<Promise<void>>;
  /** The run's guardian (runGuardian), once a command ran without the sandbox; null where none can run. */
  guardian?: { stop(): void } | null;
}

function newShared(): Shared {
  return { token: newRunToken(), commands: 0, live: new Set(), cleanups: new Set() };
}

/**
 * A long-lived process of the run, in a process group of its own and marked like every other.
 * Between uses it can be frozen (SIGSTOP, POSIX only): code it loaded from the workspace (an
 * ESLint config) then runs only while it is being used, never beside the rest of the run.
 */
export class JailedProcess {
  private frozen: number[] = [];
  private ended = false;
  readonly exited: Promise<void>;

  constructor(
    readonly child: ChildProcessByStdio<Writable, Readable, Readable>,
    private readonly mark: string,
    private readonly onEnd: () => void,
  ) {
    this.exited = new Promise((resolve) => {
      const end = (): void => {
        this.finish();
        resolve();
      };
      child.once('exit', end);
      child.once('error', end);
    });
  }

  get alive(): boolean {
    return !this.ended;
  }

  async freeze(): Promise<void> {
    if (this.ended || process.platform === 'win32') return;
    this.frozen = await freezeMarked((m) => m === this.mark);
  }

  thaw(): void {
    thaw(this.frozen);
    this.frozen = [];
  }

  /** Kills the process, its group and every process that carries its mark. */
  async stop(): Promise<void> {
    killGroup(this.child.pid);
    // A stopped process only dies of SIGKILL once it is continued on some systems: continue it too.
    this.thaw();
    await sweepMarked((m) => m === this.mark);
    this.finish();
  }

  private finish(): void {
    if (this.ended) return;
    this.ended = true;
    this.onEnd();
  }
}

function privateFolder(): string {
  return mkdtempSync(path.join(tmpdir(), 'ticket-runner-child-'));
}

/** Command `n`'s own folder in the run's private folder, with its `home/` and `tmp/`. */
function commandFolder(privateDir: string, n: number): string {
  const own = path.join(privateDir, String(n));
  mkdirSync(path.join(own, 'home'), { recursive: true });
  mkdirSync(path.join(own, 'tmp'));
  return own;
}

/** Links each entry of `seed` into `tmp`; a seed that cannot be read leaves the folder empty. */
function seedTemp(seed: string, tmp: string): void {
  let names: string[] = [];
  try {
    names = readdirSync(seed);
  } catch {
    return;
  }
  for (const name of names) symlinkSync(path.join(seed, name), path.join(tmp, name));
}

function removeFolder(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/** The sandbox binds real paths: a symlinked temp folder (macOS's /tmp) would not match. */
function real(p: string): string {
  return realPathOr(path.resolve(p));
}
