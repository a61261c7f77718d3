import { spawn, spawnSync, type ChildProcessByStdio } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';

export interface GroupRunOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  signal: AbortSignal;
  /** How much of the combined stdout and stderr to keep, from the end. */
  tailChars: number;
  /** Keep the whole stdout too, for a runner that can only report there. */
  keepStdout?: boolean;
  /**
   * Give the command a fourth stdio stream (fd 3), a socket whose text comes back as `channel`.
   * It is the processes' word to this one, kept apart from the output the code under test
   * writes to (see testApisFrozen.ts for who writes there and why nothing later can).
   */
  channel?: boolean;
}

export interface GroupRunResult {
  exitCode: number | null;
  /** Why the run was cut short, if it was. */
  stopped?: 'timeout' | 'abort';
  /** The process could not be started at all (ENOENT and the like). */
  spawnError?: Error;
  output: string;
  stdout: string;
  /** What the command wrote to fd 3, when `channel` asked for it. */
  channel?: string;
  durationMs: number;
}

/** Longest wait for the pipes to close once the group is dead. */
const DRAIN_MS = 2000;
const MAX_STDOUT = 32 * 1024 * 1024;
const MAX_CHANNEL = 1024 * 1024;

/**
 * Runs a command in its own process group with a time limit. On timeout or abort the whole
 * group is killed, and so are leftovers after a normal exit: a test runner's workers and the
 * processes its tests spawned must not outlive the run.
 */
export async function runInProcessGroup(command: string, args: string[], options: GroupRunOptions): Promise<GroupRunResult> {
  const started = Date.now();
  const tail = new Tail(options.tailChars);
  let stdout = '';
  if (options.signal.aborted) return { exitCode: null, stopped: 'abort', output: '', stdout: '', durationMs: 0 };
  const child = spawnGroupLeader(command, args, { cwd: options.cwd, env: options.env, stdin: 'ignore', channel: options.channel });
  let channel = '';
  (child.stdio[3] as Readable | undefined)?.setEncoding('utf8').on('data', (chunk: string) => {
    if (channel.length < MAX_CHANNEL) channel += chunk;
  });
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    tail.push(chunk);
    if (options.keepStdout && stdout.length < MAX_STDOUT) stdout += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => tail.push(chunk));
  const closed = new Promise<void>((resolve) => child.on('close', () => resolve()));

  let stopped: GroupRunResult['stopped'];
  const stop = (reason: 'timeout' | 'abort'): void => {
    stopped ??= reason;
    killGroup(child.pid);
  };
  const timer = setTimeout(() => stop('timeout'), options.timeoutMs);
  const onAbort = (): void => stop('abort');
  options.signal.addEventListener('abort', onAbort, { once: true });

  const exit = await new Promise<{ code: number | null; error?: Error }>((resolve) => {
    child.once('exit', (code) => resolve({ code }));
    child.once('error', (error) => resolve({ code: null, error }));
  });
  clearTimeout(timer);
  options.signal.removeEventListener('abort', onAbort);
  killGroup(child.pid);
  // A grandchild that escaped the group could hold the pipes open forever: do not wait for it.
  await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, DRAIN_MS).unref())]);
  return {
    exitCode: exit.code,
    ...(stopped ? { stopped } : {}),
    ...(exit.error ? { spawnError: exit.error } : {}),
    output: tail.text(),
    stdout,
    ...(options.channel ? { channel } : {}),
    durationMs: Date.now() - started,
  };
}

/**
 * Starts a command as the leader of a process group of its own (POSIX; on Windows, a tree
 * that taskkill ends), with its output piped: `killGroup` ends it and everything in it.
 */
export function spawnGroupLeader<I extends 'ignore' | 'pipe'>(
  command: string,
  args: string[],
  o: { cwd: string; env: NodeJS.ProcessEnv; stdin: I; channel?: boolean },
): ChildProcessByStdio<I extends 'pipe' ? Writable : null, Readable, Readable> {
  const stdio = o.channel ? [o.stdin, 'pipe', 'pipe', 'pipe'] : [o.stdin, 'pipe', 'pipe'];
  return spawn(command, args, {
    cwd: o.cwd,
    env: o.env,
    detached: process.platform !== 'win32',
    stdio: stdio as ['ignore', 'pipe', 'pipe'],
    windowsHide: true,
  }) as ChildProcessByStdio<I extends 'pipe' ? Writable : null, Readable, Readable>;
}

export function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  if (process.platform === 'win32') {
    spawnSync('taskkill', ['/pid', String(pid), '/T', '/F'], { windowsHide: true, stdio: 'ignore' });
    return;
  }
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // ESRCH: the group is already gone.
  }
}

/** The last `limit` characters of a stream, without holding all of it. */
class Tail {
  private buffer = '';
  constructor(private readonly limit: number) {}
  push(chunk: string): void {
    this.buffer += chunk;
    if (this.buffer.length > 2 * this.limit) this.buffer = this.buffer.slice(-this.limit);
  }
  text(): string {
    return this.buffer.slice(-this.limit);
  }
}
