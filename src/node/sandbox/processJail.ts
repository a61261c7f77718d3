import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { UserInputError } from '../../core/errors';
import type { SandboxStatus } from '../../core/ports/sandbox';
import { runInProcessGroup, type GroupRunOptions, type GroupRunResult } from '../testRunners/processGroup';
import { childEnvironment } from './childEnv';
import { OsSandbox, statusOf } from './osSandbox';
import { Redactor } from './redactor';

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
}

/**
 * Every process a run starts goes through here: tests, rung 4's scratch runs, the gates'
 * tsc, build and coverage. Each gets an allowlisted environment with a private HOME and
 * temp folder, runs in the OS sandbox when it can start (writes only in the root and the
 * private folder, protected paths read-only, no network, secret locations unreadable), and
 * its output is scrubbed of secret values before anyone sees it.
 */
export class ProcessJail {
  private constructor(
    private readonly o: JailOptions,
    private readonly sandbox: OsSandbox | undefined,
    readonly status: SandboxStatus,
    readonly redactor: Redactor,
    /** The private folder (`home/` and `tmp/`), made at the first command, removed by `dispose`. */
    private readonly folder: { path?: string },
    private readonly owner: boolean,
  ) {}

  private get privateDir(): string {
    this.folder.path ??= privateFolder();
    return this.folder.path;
  }

  static async open(o: JailOptions): Promise<ProcessJail> {
    const started = o.withoutSandbox !== undefined ? { off: o.withoutSandbox } : await OsSandbox.start();
    const status = statusOf(started);
    if (!status.on && o.requireSandbox) {
      throw new UserInputError(`the sandbox is required but cannot start: ${status.detail}. On Debian or Ubuntu: apt-get install bubblewrap socat ripgrep`);
    }
    return new ProcessJail(o, started instanceof OsSandbox ? started : undefined, status, o.redactor ?? Redactor.fromEnv(o.parentEnv), {}, true);
  }

  /**
   * A jail with no OS sandbox, for adapters built without one (their own unit tests): the
   * environment is still allowlisted and the output scrubbed.
   */
  static plain(root: string, parentEnv: Readonly<Record<string, string | undefined>> = process.env): ProcessJail {
    const o: JailOptions = { root, protect: [], parentEnv, withoutSandbox: 'not wired' };
    return new ProcessJail(o, undefined, { on: false, detail: 'not wired' }, Redactor.fromEnv(parentEnv), {}, true);
  }

  /** The same jail over another root (rung 4's scratch copy), with that root's protected paths. */
  at(root: string, protect: string[]): ProcessJail {
    return new ProcessJail({ ...this.o, root, protect }, this.sandbox, this.status, this.redactor, this.folder, false);
  }

  get root(): string {
    return this.o.root;
  }

  async run(command: string, args: string[], options: JailRunOptions): Promise<GroupRunResult> {
    const home = path.join(this.privateDir, 'home');
    const tmp = path.join(this.privateDir, 'tmp');
    const env = { ...childEnvironment(this.o.parentEnv, { pass: this.o.pass, home, tmp }), ...options.env };
    let argv = [command, ...args];
    if (this.sandbox) {
      const policy = {
        allowWrite: [this.o.root, this.privateDir, ...(options.writable ?? [])].map(real),
        denyWrite: [...this.o.protect, ...(options.readOnly ?? []).map((f) => path.resolve(this.o.root, f))].map(real),
      };
      argv = await this.sandbox.wrap(command, args, options.cwd, policy, options.signal, { TMPDIR: tmp, TMP: tmp, TEMP: tmp });
    }
    try {
      const run = await runInProcessGroup(argv[0]!, argv.slice(1), { ...options, env });
      return { ...run, output: this.redactor.text(run.output), stdout: this.redactor.text(run.stdout) };
    } finally {
      this.sandbox?.afterCommand();
    }
  }

  /** Removes the private folder. */
  dispose(): void {
    if (!this.owner || !this.folder.path) return;
    rmSync(this.folder.path, { recursive: true, force: true });
    this.folder.path = undefined;
  }
}

function privateFolder(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'ticket-runner-child-'));
  mkdirSync(path.join(dir, 'home'));
  mkdirSync(path.join(dir, 'tmp'));
  return dir;
}

/** The sandbox binds real paths: a symlinked temp folder (macOS's /tmp) would not match. */
function real(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}
