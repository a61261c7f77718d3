import { spawn } from 'node:child_process';
import type { Socket } from 'node:net';
import { MARK_VAR } from './processSweep';

/**
 * The guardian's script: it waits for its stdin to close, which happens when the process that
 * started it ends however it ends (kill -9 included), then kills every process that carries the
 * run's mark, looking again while any is found (one may fork while its siblings die). One grep
 * over every process's environment a round; its own processes carry no mark.
 */
const SCRIPT = `cat >/dev/null 2>&1
mark="${MARK_VAR}=$1."
for round in 1 2 3 4 5 6 7 8; do
  found=
  for f in $(grep -l -a -F "$mark" /proc/[0-9]*/environ 2>/dev/null); do
    pid=\${f#/proc/}; pid=\${pid%/environ}
    kill -9 "$pid" 2>/dev/null && found=1
  done
  [ -z "$found" ] && exit 0
  sleep 0.2
done`;

/** Where grep, cat and sleep are on every Linux, whatever PATH the run was given. */
const SYSTEM_PATH = '/usr/local/bin:/usr/bin:/bin';

/**
 * Without the OS sandbox nothing ends a run's processes when the process that runs it is killed
 * with kill -9 (bubblewrap's --die-with-parent does inside it), and the run's own sweep never
 * runs: a test process, and what it detached with setsid, would go on working in the workspace.
 * The guardian is a shell in a session of its own that outlives that process by design and
 * sweeps the run's mark (`processSweep`) once it is gone. Linux only: the mark is found in
 * /proc, which macOS does not have. Stopped with SIGKILL when the run ends as it should, since
 * the run then sweeps its mark itself.
 */
export function startGuardian(token: string): { stop(): void } | undefined {
  if (process.platform !== 'linux') return undefined;
  let child;
  try {
    child = spawn('/bin/sh', ['-c', SCRIPT, 'ticket-runner-guardian', token], {
      detached: true,
      stdio: ['pipe', 'ignore', 'ignore'],
      env: { PATH: SYSTEM_PATH },
    });
  } catch {
    return undefined;
  }
  child.on('error', () => undefined);
  // Neither the guardian nor the pipe to it keeps this process alive: the CLI exits when its work is done.
  child.unref();
  (child.stdin as unknown as Socket).unref();
  return {
    stop: () => {
      child.kill('SIGKILL');
      child.stdin.destroy();
    },
  };
}
