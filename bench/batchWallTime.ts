import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { copyFixtureInGit } from '../test/support/gitFixture';
import { copyFixture, FIXTURE, REPO_ROOT } from '../test/support/tempWorkspace';
import type { BatchReport } from '../src/core/run/views/batchReport';
import { round } from './measure';
import type { Row } from './report';

/**
 * Every ticket of the fixture, as the batch runs them, each to its end with the scripted
 * model and no gates: lengths differ (one attempt, two, a stop for the operator), so how the
 * batch shares its two slots shows in the figure.
 */
const TICKETS = readdirSync(path.join(FIXTURE, '.tickets'))
  .map((f) => /^(BLOG-\d+)\.ticket\.json$/.exec(f)?.[1])
  .filter((id): id is string => id !== undefined)
  .sort((a, b) => Number(a.slice(5)) - Number(b.slice(5)))
  .map((id) => `.tickets/${id}.ticket.json`);
const RUN_OPTIONS = ['--model', 'scripted', '--gates', 'none'];
const CLI = path.join(REPO_ROOT, 'dist', 'cli.js');

export interface BatchWallTime {
  tickets: string[];
  /** Each ticket alone (`run`), one after another: the sum of their wall times. */
  aloneMs: number;
  aloneEachMs: number[];
  /** `batch --parallel 2` over the same tickets, in a git copy (a worktree each). */
  batchMs: number;
  /** Each ticket's run in the batch, from its log (first event to last): beside another, each takes longer. */
  batchEachMs: number[];
  outcomesAlone: number[];
  batchExit: number | null;
  ratio: number;
  cpus: number;
  /** The 1-minute load average before, between and after the two: the machine is shared. */
  load: number[];
}

function cli(args: string[]): Promise<number | null> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'ignore', 'ignore'] });
    child.on('close', (code) => resolve(code));
  });
}

/**
 * The batch's wall time on this machine against running the same tickets one after another,
 * in one process, back to back: both see the same load.
 */
export async function measureBatchWallTime(): Promise<BatchWallTime> {
  const load = [os.loadavg()[0]!];
  const aloneEachMs: number[] = [];
  const outcomesAlone: number[] = [];
  for (const ticket of TICKETS) {
    const ws = copyFixture();
    try {
      const t = performance.now();
      outcomesAlone.push((await cli(['run', ticket, '--workspace', ws.root, ...RUN_OPTIONS])) ?? -1);
      aloneEachMs.push(performance.now() - t);
    } finally {
      ws.dispose();
    }
  }
  load.push(os.loadavg()[0]!);
  const ws = copyFixtureInGit();
  let batchMs: number;
  let batchExit: number | null;
  let batchEachMs: number[];
  try {
    const t = performance.now();
    const out = path.join(ws.root, '..', 'out');
    batchExit = await cli(['batch', ...TICKETS, '--workspace', ws.root, '--parallel', '2', '--out', out, ...RUN_OPTIONS]);
    batchMs = performance.now() - t;
    batchEachMs = (JSON.parse(readFileSync(path.join(out, 'batch-report.json'), 'utf8')) as BatchReport).tickets.map((e) => e.wallMs);
  } finally {
    ws.dispose();
  }
  load.push(os.loadavg()[0]!);
  const aloneMs = aloneEachMs.reduce((a, b) => a + b, 0);
  return {
    tickets: TICKETS,
    aloneMs,
    aloneEachMs,
    batchMs,
    batchEachMs,
    outcomesAlone,
    batchExit,
    ratio: batchMs / aloneMs,
    cpus: os.cpus().length,
    load: load.map((n) => round(n, 2)),
  };
}

export function batchWallTimeRow(b: BatchWallTime): Row {
  const s = (ms: number) => `${round(ms / 1000)} s`;
  return {
    figure: `Batch wall time, ${b.tickets.length} fixture tickets: batch --parallel 2 ÷ one after another`,
    measured: `batch ${s(b.batchMs)} (its runs ${b.batchEachMs.map(s).join(', ')}) vs each alone ${s(b.aloneMs)} (${b.aloneEachMs.map(s).join(' + ')}) on ${b.cpus} cores, load average ${b.load.join(' → ')}`,
    ratio: b.ratio,
    target: '< 0.7',
    met: b.ratio < 0.7,
  };
}

if (require.main === module) {
  measureBatchWallTime().then(
    (b) => process.stdout.write(`${JSON.stringify({ ...b, row: batchWallTimeRow(b) }, null, 2)}\n`),
    (err: unknown) => {
      process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
      process.exitCode = 1;
    },
  );
}
