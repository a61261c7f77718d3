import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';

/** What a section's process leaves in its output file. */
export type SectionOutcome = { ok: true; value: unknown } | { ok: false; error: string; detail?: string };

export interface SectionRun {
  name: string;
  seconds: number;
  /** The section's value, or undefined with `why` (one line) when it could not run. */
  value?: unknown;
  why?: string;
  detail?: string;
}

/** Parent → children map of every live process, from /proc (Linux; elsewhere only the group is killed). */
function processTree(): Map<number, number[]> {
  const children = new Map<number, number[]>();
  let entries: string[] = [];
  try {
    entries = readdirSync('/proc').filter((e) => /^\d+$/.test(e));
  } catch {
    return children;
  }
  for (const pid of entries) {
    try {
      // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so read after the last ')'.
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(pid)]);
    } catch {
      // Gone while we read.
    }
  }
  return children;
}

function descendants(pid: number): number[] {
  const tree = processTree();
  const out: number[] = [];
  const walk = (p: number) => {
    for (const c of tree.get(p) ?? []) {
      out.push(c);
      walk(c);
    }
  };
  walk(pid);
  return out;
}

/**
 * Kills a section with everything it started. code-server and Chromium start their own process
 * groups, so the group of the section is not enough: every descendant is collected first (once
 * the section dies they are reparented and no longer traceable), then all are killed.
 */
function killTree(pid: number): void {
  const all = new Set([pid, ...descendants(pid), ...descendants(pid)]);
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // No such group.
  }
  for (const p of all) {
    try {
      process.kill(p, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
}

const firstLine = (s: string) =>
  s
    .split('\n')
    .find((l) => l.trim())
    ?.trim() ?? s;

/**
 * Runs one section in its own Node process (bench/section.ts) under a time limit. A section that
 * throws, exits or passes its limit gives one line saying why, and never holds up the others: the
 * bench cannot hang on a stuck editor or browser, and a sync loop cannot block the timer.
 */
export function runIsolated(
  name: string,
  args: unknown,
  limitS: number,
  outFile: string,
  entry = path.join(__dirname, 'section.ts'),
): Promise<SectionRun> {
  rmSync(outFile, { force: true });
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--require', 'tsx/cjs', entry, name, JSON.stringify(args), outFile], {
      detached: true,
      // The section's own output is progress: it goes to stderr, the table alone to stdout.
      stdio: ['ignore', process.stderr, process.stderr],
    });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      killTree(child.pid!);
    }, limitS * 1000);
    const done = (code: number | null, spawnError?: Error) => {
      clearTimeout(timer);
      const seconds = (performance.now() - started) / 1000;
      if (timedOut) return resolve({ name, seconds, why: `stopped at its time limit of ${limitS} s` });
      if (spawnError) return resolve({ name, seconds, why: `could not start: ${spawnError.message}` });
      // Whatever the section started and left behind (a server it failed to stop) goes with it.
      killTree(child.pid!);
      if (!existsSync(outFile)) return resolve({ name, seconds, why: `its process exited with ${String(code)} and no result` });
      const out = JSON.parse(readFileSync(outFile, 'utf8')) as SectionOutcome;
      if (out.ok) return resolve({ name, seconds, value: out.value });
      resolve({ name, seconds, why: firstLine(out.error), detail: out.detail });
    };
    child.once('error', (err) => done(null, err));
    child.once('exit', (code) => done(code));
  });
}
