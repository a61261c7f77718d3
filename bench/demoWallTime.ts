import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { REPO_ROOT } from '../test/support/tempWorkspace';
import { round } from './measure';
import type { Row } from './report';

/** The goal: every fixture's tickets, as `npm run demo` runs them, in under 4 minutes on 2 cores. */
export const DEMO_TARGET_S = 240;

export interface DemoWallTime {
  ms: number;
  exitCode: number | null;
  /** The tickets the demo's summary lists, from its own line "N tickets in S s". */
  tickets: number | null;
  cpus: number;
  /** The 1-minute load average before and after: the machine is shared. */
  load: number[];
  /**
   * The whole machine's busy CPU time while the demo ran, in seconds, from /proc/stat (Linux;
   * null elsewhere). Not the demo's own rusage: a process counts its children's CPU only once it
   * has waited for them, and the runs' tools (workers, sandboxed test processes, language
   * servers) end in ways that leave much of theirs uncounted. On an idle machine this is the demo's.
   */
  busyCpuS: number | null;
}

/** Busy and total CPU ticks of the whole machine so far (the first line of /proc/stat), or null off Linux. */
function machineTicks(): { busy: number; total: number } | null {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    const total = fields.reduce((a, b) => a + b, 0);
    // idle and iowait are the 4th and 5th fields.
    return { busy: total - fields[3]! - (fields[4] ?? 0), total };
  } catch {
    return null;
  }
}

/** `npm run demo` as a newcomer runs it (the build is the bench's own), timed from start to exit. */
export async function measureDemoWallTime(): Promise<DemoWallTime> {
  const load = [round(os.loadavg()[0]!)];
  const ticks = machineTicks();
  const t = performance.now();
  const { code, out } = await new Promise<{ code: number | null; out: string }>((resolve) => {
    const child = spawn(process.execPath, [path.join(REPO_ROOT, 'scripts', 'demo.mjs')], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    let text = '';
    child.stdout.on('data', (d: Buffer) => (text += d.toString('utf8')));
    child.on('close', (c) => resolve({ code: c, out: text }));
  });
  const ms = performance.now() - t;
  const after = machineTicks();
  load.push(round(os.loadavg()[0]!));
  // USER_HZ is 100 on every Linux this runs on.
  const busyCpuS = ticks && after ? round((after.busy - ticks.busy) / 100) : null;
  const counted = /^(\d+) tickets in \d+ s$/m.exec(out);
  return { ms, exitCode: code, tickets: counted ? Number(counted[1]) : null, cpus: os.availableParallelism(), load, busyCpuS };
}

export function demoWallTimeRow(d: DemoWallTime): Row {
  const s = round(d.ms / 1000);
  return {
    figure: "Demo wall time: every fixture's tickets (`npm run demo`, its default parallelism)",
    measured: `${s} s for ${d.tickets ?? '?'} tickets, exit ${d.exitCode} (0: each ended as meant), on ${d.cpus} cores, load average ${d.load.join(' → ')}${d.busyCpuS === null ? '' : `; the machine's CPUs busy ${round((100 * d.busyCpuS) / (s * d.cpus))}% of the time (${round(d.busyCpuS / 60)} core-minutes)`}`,
    target: `< ${DEMO_TARGET_S} s`,
    met: d.exitCode === 0 && s < DEMO_TARGET_S,
  };
}

if (require.main === module) {
  measureDemoWallTime().then(
    (d) => process.stdout.write(`${JSON.stringify({ ...d, row: demoWallTimeRow(d) }, null, 2)}\n`),
    (err: unknown) => {
      process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
      process.exitCode = 1;
    },
  );
}
