import { randomBytes } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';

/**
 * The variable that marks every process a run starts, and what they start in turn (a child
 * inherits its parent's environment). Its value is `<run token>.<command number>`: the token
 * is random per run, so no process outside the run carries it.
 */
export const MARK_VAR = 'TICKET_RUNNER_MARK';

/** A fresh run token: 128 random bits, never guessed by a process outside the run. */
export function newRunToken(): string {
  return randomBytes(16).toString('hex');
}

/** How many times a sweep looks again: a marked process may fork while its siblings die. */
const ROUNDS = 8;

/**
 * The pids of the processes whose environment carries a mark that `match` accepts, never
 * this process. A process that detached itself (setsid, `detached: true`) has left the
 * command's process group, but not its environment: this is how it is found once its
 * parent is gone. Linux only (`/proc/<pid>/environ`, readable for the user's own processes).
 * macOS has no /proc and this finds nothing there: a detached descendant of a command run
 * without the OS sandbox outlives the run on macOS (sandbox-exec has no die-with-parent),
 * and only the process-group kill applies. A process that clears its own environment before
 * exec escapes the mark too; inside bubblewrap, the sandbox's own pid namespace ends it.
 */
export async function markedPids(match: (mark: string) => boolean): Promise<number[]> {
  if (process.platform !== 'linux') return [];
  const names = await readdir('/proc').catch(() => [] as string[]);
  const found: number[] = [];
  const prefix = `${MARK_VAR}=`;
  await Promise.all(
    names.map(async (name) => {
      if (!/^\d+$/.test(name)) return;
      const pid = Number(name);
      if (pid === process.pid) return;
      // Another user's process (EACCES) or one that just ended (ENOENT): not ours to sweep.
      const environ = await readFile(`/proc/${name}/environ`, 'latin1').catch(() => '');
      if (!environ.includes(prefix)) return;
      for (const entry of environ.split('\0')) {
        if (entry.startsWith(prefix) && match(entry.slice(prefix.length))) {
          found.push(pid);
          return;
        }
      }
    }),
  );
  return found.sort((a, b) => a - b);
}

/** SIGKILLs every marked process `match` accepts, again until none is left; returns their pids. */
export async function sweepMarked(match: (mark: string) => boolean): Promise<number[]> {
  const killed = new Set<number>();
  for (let round = 0; round < ROUNDS; round++) {
    // A process being torn down may still show its environment for a moment: it is killed again.
    const pids = await markedPids(match);
    if (!pids.length) break;
    for (const pid of pids) {
      signal(pid, 'SIGKILL');
      killed.add(pid);
    }
  }
  return [...killed].sort((a, b) => a - b);
}

/**
 * SIGSTOPs every marked process `match` accepts (a stopped process cannot fork, so looking
 * again until nothing new appears catches the children started meanwhile); `thaw` them with
 * the pids returned.
 */
export async function freezeMarked(match: (mark: string) => boolean): Promise<number[]> {
  const stopped = new Set<number>();
  for (let round = 0; round < ROUNDS; round++) {
    const fresh = (await markedPids(match)).filter((p) => !stopped.has(p));
    if (!fresh.length) break;
    for (const pid of fresh) {
      signal(pid, 'SIGSTOP');
      stopped.add(pid);
    }
    // Looking again is sound only once they are stopped: until then they can still fork.
    await untilStopped(fresh);
  }
  return [...stopped];
}

/** How long `freezeMarked` waits for the kernel to stop what it signalled. */
const STOP_WAIT_MS = 2_000;

/**
 * SIGSTOP is delivered when the kernel next schedules the process: on a busy machine a process
 * running on another core goes on for a moment after kill() returned. Frozen means stopped, so
 * this waits until /proc says so (stopped, traced, a zombie, or gone), at most STOP_WAIT_MS.
 */
async function untilStopped(pids: number[]): Promise<void> {
  const end = Date.now() + STOP_WAIT_MS;
  for (let left = pids; left.length && Date.now() < end; await new Promise((r) => setTimeout(r, 5))) {
    const states = await Promise.all(left.map(processState));
    left = left.filter((_, i) => !'TtZX'.includes(states[i]!));
  }
}

/** The one-letter state of proc(5)'s stat (R running, S sleeping, T stopped…); X once the process is gone. */
async function processState(pid: number): Promise<string> {
  const stat = await readFile(`/proc/${pid}/stat`, 'latin1').catch(() => '');
  // The name in parentheses may hold spaces and parentheses: the state follows the last ')'.
  const close = stat.lastIndexOf(')');
  return close < 0 ? 'X' : stat.charAt(close + 2) || 'X';
}

export function thaw(pids: readonly number[]): void {
  for (const pid of pids) signal(pid, 'SIGCONT');
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // ESRCH: it ended meanwhile.
  }
}
