import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import type { SandboxManager } from '@anthropic-ai/sandbox-runtime' with { 'resolution-mode': 'import' };
import { errorMessage } from '../../core/errors';
import type { SandboxStatus } from '../../core/ports/sandbox';
import { packageRoot } from '../packageRoot';
import type { SandboxWrapper } from './sandboxProtocol';
import { withQuietCwd } from './quietCwd';
import { WorkerManager } from './sandboxThread';

type Manager = typeof SandboxManager;

/**
 * Read by nothing a run executes: where people keep keys and tokens. `~` is the real home of
 * the user, whatever HOME the child gets.
 */
export const SECRET_LOCATIONS = [
  '~/.ssh',
  '~/.aws',
  '~/.azure',
  '~/.config/gh',
  '~/.config/gcloud',
  '~/.config/hub',
  '~/.docker',
  '~/.gnupg',
  '~/.kube',
  '~/.netrc',
  '~/.npmrc',
  '~/.pypirc',
  '~/.git-credentials',
  '~/.anthropic',
  '~/.claude',
  '~/.config/Code/User/globalStorage',
  '~/.vscode-server/data/User/globalStorage',
  '~/.local/share/code-server/User/globalStorage',
  '~/Library/Application Support/Code/User/globalStorage',
];

/** What one sandboxed command may write: folders, minus files and folders inside them. */
export interface WritePolicy {
  allowWrite: string[];
  denyWrite: string[];
  /** The workspace (or scratch copy) whose mandatory denies apply, wherever this process runs (`workspaceDenies`). */
  workspace?: string;
}

/**
 * No host at all. The runtime is never initialized: its filtering proxies exist to let some
 * hosts through, and without them a command gets a network namespace of its own with no way
 * out (bubblewrap's --unshare-net), and no server is left holding this process open.
 */
const NO_NETWORK = { allowedDomains: [], deniedDomains: [] };

/** How often the shell is looked up before its absence is believed. */
const SHELL_LOOKUPS = 4;

/**
 * The OS sandbox of @anthropic-ai/sandbox-runtime (bubblewrap on Linux, sandbox-exec on
 * macOS). Each command is wrapped with its own write policy. `start` never throws: a sandbox
 * that cannot start says why, and the run goes on with the other protections. The runtime runs
 * in a worker thread (`sandboxThread.ts`): its start and each wrap wait on child processes.
 */
export class OsSandbox {
  constructor(private readonly manager: SandboxWrapper) {}

  static start(): Promise<OsSandbox | { off: string }> {
    started ??= startInWorker();
    return started;
  }

  /** The argv that runs `command args` in the sandbox with `policy`, from `cwd`. */
  async wrap(
    command: string,
    args: string[],
    cwd: string,
    policy: WritePolicy,
    signal: AbortSignal,
    env: Record<string, string> = {},
  ): Promise<string[]> {
    // The runtime sets its own TMPDIR inside; the child's private one is set again over it.
    const assign = Object.entries(env).map(([k, v]) => `${k}=${shellQuote(v)}`);
    const line = [...assign, 'exec', ...[command, ...args].map(shellQuote)].join(' ');
    const config = {
      network: NO_NETWORK,
      filesystem: { denyRead: SECRET_LOCATIONS, allowWrite: policy.allowWrite, denyWrite: policy.denyWrite },
    };
    // The runtime finds the shell with `which`, given one second: on a machine busy enough that
    // the lookup times out it says the shell is not in PATH. Asked again, the answer is real.
    for (let tries = 1; ; tries++) {
      try {
        return execd((await this.manager.wrapWithSandboxArgv(line, 'sh', config, signal, cwd, policy.workspace)).argv);
      } catch (err) {
        if (tries >= SHELL_LOOKUPS || signal.aborted || !/^Shell '.*' not found in PATH$/.test(errorMessage(err))) throw err;
        await new Promise((r) => setTimeout(r, 200 * tries));
      }
    }
  }

  /** Drops what the library keeps about the last command (its bind-mount stubs); settles once done. */
  async afterCommand(): Promise<void> {
    await this.manager.cleanupAfterCommand();
  }

  /** What the status line says when it is on. */
  describe(): string {
    return process.platform === 'darwin' ? 'sandbox-exec' : 'bubblewrap';
  }
}

let started: Promise<OsSandbox | { off: string }> | undefined;

const WINDOWS = 'Windows needs the sandbox runtime set-up (srt-win), which Ticket Runner does not install';

/** The runtime in its worker thread, as the build ships it (`dist/sandboxWorker.js`). */
async function startInWorker(): Promise<OsSandbox | { off: string }> {
  if (process.platform === 'win32') return { off: WINDOWS };
  let script: string;
  try {
    script = path.join(packageRoot(), 'dist', 'sandboxWorker.js');
  } catch (err) {
    return { off: `the sandbox's worker was not found: ${errorMessage(err)}` };
  }
  const manager = await WorkerManager.start(script);
  return 'off' in manager ? manager : new OsSandbox(manager);
}

/**
 * The runtime's manager once it loaded, found its tools and ran one command, or why it cannot:
 * what the worker thread (`sandboxWorker.ts`) does before it serves any wrap.
 */
export async function bootRuntime(): Promise<SandboxWrapper | { off: string }> {
  if (process.platform === 'win32') return { off: WINDOWS };
  let manager: Manager;
  try {
    manager = (await import('@anthropic-ai/sandbox-runtime')).SandboxManager;
  } catch (err) {
    return { off: `the sandbox runtime did not load: ${errorMessage(err)}` };
  }
  if (!manager.isSupportedPlatform()) return { off: `${process.platform} is not supported by the sandbox runtime` };
  const deps = manager.checkDependencies();
  if (deps.errors.length) return { off: deps.errors.join('; ') };
  // Its scan of the process's folder, not the workspace's, runs where it protects something (`quietCwd.ts`).
  let quiet: string;
  try {
    quiet = path.join(packageRoot(), 'dist');
  } catch (err) {
    return { off: `the sandbox's package folder was not found: ${errorMessage(err)}` };
  }
  const wrapper = withQuietCwd(manager, quiet);
  const sandbox = new OsSandbox(wrapper);
  // bwrap can be installed and still unable to make namespaces (a container without user
  // namespaces): try one command before promising anything.
  const probe = await sandbox
    .wrap('true', [], process.cwd(), { allowWrite: [], denyWrite: [] }, new AbortController().signal)
    .catch((err: unknown) => errorMessage(err));
  if (typeof probe === 'string') return { off: `the sandbox did not start: ${probe}` };
  const ran = spawnSync(probe[0]!, probe.slice(1), { encoding: 'utf8', timeout: 20_000 });
  await sandbox.afterCommand();
  if (ran.status !== 0)
    return {
      off: `the sandbox cannot run a command here: ${(ran.stderr || ran.error?.message || `exit ${String(ran.status)}`).trim().split('\n')[0]}`,
    };
  return wrapper;
}

/**
 * The runtime's `sh -c '<bwrap ...>'`, with the shell replaced by bwrap (`exec`): bwrap's
 * `--die-with-parent` then watches this process, so a run killed with kill -9 takes its sandboxed
 * processes with it. Behind a shell that stays, they would outlive it.
 */
function execd(argv: string[]): string[] {
  const [shell, flag, command] = argv;
  return argv.length === 3 && flag === '-c' && shell !== undefined && command !== undefined ? [shell, flag, `exec ${command}`] : argv;
}

export function shellQuote(s: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** The status every view shows, from what `start` gave. */
export function statusOf(s: OsSandbox | { off: string }): SandboxStatus {
  return s instanceof OsSandbox ? { on: true, detail: s.describe() } : { on: false, detail: s.off };
}
