import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { REPO_ROOT } from './tempWorkspace';

/** The built command, as a user runs it: `npm run build` makes it. */
export const DIST_CLI = path.join(REPO_ROOT, 'dist', 'cli.js');

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

function assertBuilt(): void {
  if (!existsSync(DIST_CLI)) throw new Error(`${DIST_CLI} is missing: run npm run build first`);
}

/** Runs `ticket-runner <args>` to its end in a child process. */
export function runDistCli(args: string[], o: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): CliResult {
  assertBuilt();
  const r = spawnSync(process.execPath, [DIST_CLI, ...args], {
    cwd: o.cwd ?? REPO_ROOT,
    env: o.env ?? process.env,
    encoding: 'utf8',
    timeout: o.timeoutMs ?? 120_000,
  });
  return { code: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr };
}

/** Starts `ticket-runner <args>` and leaves it running: for signals and a second run beside it. */
export function startDistCli(
  args: string[],
  o: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): { child: ChildProcess; done: Promise<CliResult>; stderr: () => string } {
  assertBuilt();
  const child = spawn(process.execPath, [DIST_CLI, ...args], {
    cwd: o.cwd ?? REPO_ROOT,
    env: o.env ?? process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const done = new Promise<CliResult>((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
  return { child, done, stderr: () => stderr };
}

/** No line of a stack trace ("    at fn (file.js:1:2)") in the output. */
export const STACK_LINE = /^\s+at .+(:\d+:\d+\)?|\(native\))$/m;

/** Waits until `ok()` holds, polling; fails naming `what` past the time limit. */
export async function until(what: string, ok: () => boolean, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
