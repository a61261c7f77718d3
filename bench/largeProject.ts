import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { git } from '../test/support/gitFixture';
import { REPO_ROOT } from '../test/support/tempWorkspace';
import type { BatchReport } from '../src/core/run/views/batchReport';
import { generateRepo, testsReaching } from './genRepo';
import { largeTicketPath, largeTicketTest, writeLargeTicket } from './largeTickets';
import { round } from './measure';
import { count, type Row } from './report';
import { phases, runLog, timed, type LoggedEvent } from './timeToVerdict';

/**
 * The flag that makes the projectTests gate run the project's whole suite rather than the test
 * files that reach the change. A CLI that does not know it runs the whole suite for that gate
 * anyway, so the batch then goes without it.
 */
export const ALL_PROJECT_TESTS_FLAG = '--all-project-tests';

const CLI = path.join(REPO_ROOT, 'dist', 'cli.js');
export const LARGE_SIZES = [
  { label: '10k', modules: 100 },
  { label: '100k', modules: 1000 },
] as const;
export type LargeSize = (typeof LARGE_SIZES)[number]['label'];
/** Tickets near the top of the import graph, where a typical change lands: a handful of the suite's files reach them. */
const FIRST = (modules: number) => modules - 49;
const SECOND = (modules: number) => modules - 38;
const BATCH_TICKETS = 10;
/**
 * The one option a run takes beyond the CLI's defaults: the default limit of a test run (two
 * minutes) is shorter than the 100k repo's whole suite on a loaded two-core machine, and a
 * baseline that times out is neither kept nor a measure of anything.
 */
const TEST_TIMEOUT = ['--test-timeout-ms', String(30 * 60_000)];

interface Run {
  ticket: string;
  runId: string;
  outcome: string;
  sandbox: string;
  runMs: number;
  phasesMs: { baseline: number; attempts: number; gates: number };
  /** The run reused an earlier run's measure of the project: its tests' and its type-check's. */
  reusedTests: boolean;
  reusedTypeCheck: boolean;
  /** The project's test files the baseline ran (or reused). */
  baselineFiles: number;
  /** Each event before the first write, at its ms from the run's start: where that time went. */
  beforeWrite: string[];
  /** The gates that failed or could not run, with the start of their detail: why a run did not pass. */
  gatesNotPassed: string[];
}

export interface SizeFigures {
  label: LargeSize;
  lines: number;
  testFiles: number;
  first: Run;
  /** The bare tools on the first run's end state: tsc, the project tests that reach the module, the ticket's test. */
  bare: { typecheckMs: number; reachedTestsMs: number; reachedFiles: number; ticketTestMs: number; sumMs: number };
  verdictRatio: number;
  second: Run;
  /** The second ticket's time before its first write ÷ the first's. */
  beforeWriteRatio: number;
}

export interface BatchBaselines {
  label: LargeSize;
  tickets: number;
  options: string[];
  exit: number | null;
  wallMs: number;
  /** Baselines of the project's tests measured across the batch's runs (those without `reusedFrom`). */
  measured: number;
  reused: number;
}

export interface LargeProject {
  sizes: SizeFigures[];
  batch: BatchBaselines | null;
  cpus: number;
  /** The 1-minute load average before each size and the batch, and at the end: the machine is shared. */
  load: number[];
}

const cli = (args: string[]) => timed(process.execPath, [CLI, ...args], os.tmpdir());
const runIds = (root: string) => {
  try {
    return readdirSync(path.join(root, '.ticket-runner', 'runs'));
  } catch {
    return [];
  }
};
const firstOf = <T extends LoggedEvent>(events: LoggedEvent[], type: string) => events.find((e) => e.type === type) as T | undefined;

function untilFirstWrite(events: LoggedEvent[]): string[] {
  const start = Date.parse(events[0]?.ts ?? '');
  const end = events.findIndex((e) => e.type === 'files.written');
  return events.slice(0, end < 0 ? events.length : end + 1).map((e) => `${e.type} ${Date.parse(e.ts) - start}`);
}

/** Runs ticket i by the CLI with its defaults and the scripted model, from outside the workspace. */
async function runTicket(root: string, i: number): Promise<Run> {
  const before = new Set(runIds(root));
  const run = await cli(['run', largeTicketPath(i), '--workspace', root, '--model', 'scripted', ...TEST_TIMEOUT]);
  const runId = runIds(root).find((id) => !before.has(id));
  if (!runId) throw new Error(`${largeTicketPath(i)} left no run (exit ${String(run.code)}): ${run.output.slice(-400)}`);
  const events = runLog(root, runId);
  const started = firstOf(events, 'run.started');
  const tests = firstOf<LoggedEvent & { reusedFrom?: unknown; files?: string[] }>(events, 'projectTests.baseline');
  const recorded = firstOf<LoggedEvent & { projectReusedFrom?: unknown }>(events, 'baseline.recorded');
  return {
    ticket: largeTicketPath(i),
    runId,
    outcome: firstOf(events, 'run.finished')?.outcome ?? `exit ${String(run.code)}`,
    sandbox: started?.sandbox?.on ? 'on' : `off${started?.sandbox?.detail ? ` (${started.sandbox.detail})` : ''}`,
    runMs: round(run.ms),
    phasesMs: phases(events),
    reusedTests: tests?.reusedFrom !== undefined,
    reusedTypeCheck: recorded?.projectReusedFrom !== undefined,
    baselineFiles: tests?.files?.length ?? 0,
    beforeWrite: untilFirstWrite(events),
    gatesNotPassed: events
      .filter((e): e is LoggedEvent & { gate: string; status: string; detail: string } => e.type === 'gate.ran')
      .filter((e) => e.status === 'failed' || e.status === 'error')
      .map((e) => `${e.gate} ${e.status}: ${e.detail.slice(0, 200)}`),
  };
}

/** A generated repo with its own suite and the tickets `ids`, in a folder of its own. */
function repoWithTickets(base: string, modules: number, ids: number[]) {
  const repo = generateRepo(path.join(base, `repo-${modules}`), modules, path.join(REPO_ROOT, 'node_modules'), { tests: true });
  mkdirSync(path.join(repo.root, '.tickets'), { recursive: true });
  for (const i of ids) writeLargeTicket(repo.root, i);
  return repo;
}

async function measureSize(base: string, label: LargeSize, modules: number): Promise<SizeFigures> {
  const first = FIRST(modules);
  const second = SECOND(modules);
  const repo = repoWithTickets(base, modules, [first, second]);
  const ws = repo.root;
  const one = await runTicket(ws, first);
  const tsc = await timed(
    process.execPath,
    [path.join(ws, 'node_modules', 'typescript', 'bin', 'tsc'), '--noEmit', '-p', 'tsconfig.json'],
    ws,
  );
  const reached = testsReaching(first, modules);
  const tests = await timed(process.execPath, ['--import', 'tsx', '--test', ...reached], ws);
  const ticket = await timed(process.execPath, ['--import', 'tsx', '--test', largeTicketTest(first)], ws);
  if (tsc.code !== 0 || tests.code !== 0 || ticket.code !== 0)
    throw new Error(
      `${label}: a bare tool failed on the run's end state (tsc ${String(tsc.code)}, tests ${String(tests.code)}, ticket ${String(ticket.code)})`,
    );
  const rolledBack = await cli(['rollback', one.runId, '--workspace', ws]);
  if (rolledBack.code !== 0) throw new Error(`${label}: rollback of ${one.runId} failed: ${rolledBack.output.slice(-400)}`);
  const two = await runTicket(ws, second);
  const sumMs = tsc.ms + tests.ms + ticket.ms;
  const result = {
    label,
    lines: repo.lines,
    testFiles: repo.testFiles,
    first: one,
    bare: {
      typecheckMs: round(tsc.ms),
      reachedTestsMs: round(tests.ms),
      reachedFiles: reached.length,
      ticketTestMs: round(ticket.ms),
      sumMs: round(sumMs),
    },
    verdictRatio: round(one.runMs / sumMs, 2),
    second: two,
    beforeWriteRatio: round(two.phasesMs.baseline / one.phasesMs.baseline, 3),
  };
  rmSync(ws, { recursive: true, force: true });
  return result;
}

/** Whether this CLI's `run` knows a flag: its help names it. */
function cliKnows(flag: string): boolean {
  const help = spawnSync(process.execPath, [CLI, 'run', '--help'], { encoding: 'utf8' });
  return `${help.stdout}${help.stderr}`.includes(flag);
}

/** Ten tickets on one commit as one batch, the project's whole suite as its gate: how many runs measured it. */
async function measureBatch(base: string, label: LargeSize, modules: number): Promise<BatchBaselines> {
  const ids = Array.from({ length: BATCH_TICKETS }, (_, k) => modules - BATCH_TICKETS + k);
  const ws = repoWithTickets(base, modules, ids).root;
  writeFileSync(path.join(ws, '.gitignore'), 'node_modules\n');
  git(ws, 'init', '-q');
  git(ws, 'add', '-A');
  git(ws, 'commit', '-qm', 'generated');
  const options = [
    '--model',
    'scripted',
    ...TEST_TIMEOUT,
    '--gates',
    'projectTests',
    ...(cliKnows(ALL_PROJECT_TESTS_FLAG) ? [ALL_PROJECT_TESTS_FLAG] : []),
  ];
  const out = path.join(base, 'batch-out');
  const t = performance.now();
  const batch = await cli(['batch', ...ids.map(largeTicketPath), '--workspace', ws, '--parallel', '2', '--out', out, ...options]);
  const wallMs = performance.now() - t;
  const report = JSON.parse(readFileSync(path.join(out, 'batch-report.json'), 'utf8')) as BatchReport & { batchDir: string };
  const baselines = report.tickets.flatMap((e) => {
    if (!e.runId) return [];
    const events = readFileSync(path.join(report.batchDir, 'runs', e.runId, 'events.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { type: string; reusedFrom?: unknown });
    return events.filter((x) => x.type === 'projectTests.baseline');
  });
  const measured = baselines.filter((b) => b.reusedFrom === undefined).length;
  return { label, tickets: ids.length, options, exit: batch.code, wallMs: round(wallMs), measured, reused: baselines.length - measured };
}

/**
 * A run on a generated repo with a suite sized like a real one, at each size: a one-module
 * ticket's time to verdict against the bare tools on the reached set, a second ticket on the
 * same commit against the first before its first write (the project measured once and reused),
 * and a batch of ten with the whole suite as its gate (at the smaller size: it measures a count,
 * which the size does not change, and the larger would run the suite ten times).
 */
export async function measureLargeProject(sizes: readonly LargeSize[] = ['10k', '100k'], batch = true): Promise<LargeProject> {
  const base = mkdtempSync(path.join(os.tmpdir(), 'tr-large-'));
  const load = [round(os.loadavg()[0]!, 2)];
  try {
    const figures: SizeFigures[] = [];
    for (const s of LARGE_SIZES.filter((x) => sizes.includes(x.label))) {
      figures.push(await measureSize(base, s.label, s.modules));
      load.push(round(os.loadavg()[0]!, 2));
    }
    const batchFigures = batch ? await measureBatch(base, '10k', LARGE_SIZES[0].modules) : null;
    if (batch) load.push(round(os.loadavg()[0]!, 2));
    return { sizes: figures, batch: batchFigures, cpus: os.cpus().length, load };
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}

/** The parts run as separate sections, as one. */
export function joinLargeProject(parts: readonly LargeProject[]): LargeProject {
  return {
    sizes: parts.flatMap((p) => p.sizes),
    batch: parts.find((p) => p.batch)?.batch ?? null,
    cpus: parts[0]?.cpus ?? os.cpus().length,
    load: parts.flatMap((p) => p.load),
  };
}

/** Two rows per size (the verdict, the second ticket) and one for the batch. */
export function largeProjectRows(p: LargeProject): Row[] {
  const s = (ms: number) => `${round(ms / 1000, 1)} s`;
  const rows: Row[] = [];
  for (const f of p.sizes) {
    const at = `${count(f.lines)} lines, ${f.testFiles} test files`;
    rows.push({
      figure: `Time to verdict, one-module ticket, ${at} (default gates, sandbox ${f.first.sandbox}): the run ÷ the bare tools on the reached set`,
      measured: `run ${s(f.first.runMs)} (${[f.first.outcome, ...f.first.gatesNotPassed].join('; ')}; before the first write ${s(f.first.phasesMs.baseline)} with ${f.first.baselineFiles} test files, attempts ${s(f.first.phasesMs.attempts)}, gates ${s(f.first.phasesMs.gates)}) vs tsc ${s(f.bare.typecheckMs)} + the ${f.bare.reachedFiles} test files reaching the module ${s(f.bare.reachedTestsMs)} + the ticket's test ${s(f.bare.ticketTestMs)}`,
      ratio: f.verdictRatio,
      target: '≤ 1.5',
      met: f.verdictRatio <= 1.5,
    });
    rows.push({
      figure: `A second ticket on the same commit, ${at}: its time before the first write ÷ the first's`,
      measured: `${s(f.second.phasesMs.baseline)} (tests ${f.second.reusedTests ? 'reused' : 'measured again'}, type-check ${f.second.reusedTypeCheck ? 'reused' : 'measured again'}; run ${s(f.second.runMs)}, ${[f.second.outcome, ...f.second.gatesNotPassed].join('; ')}) vs ${s(f.first.phasesMs.baseline)}`,
      ratio: f.beforeWriteRatio,
      target: '≤ 0.2',
      met: f.beforeWriteRatio <= 0.2,
    });
  }
  const b = p.batch;
  if (b)
    rows.push({
      figure: `A batch of ${b.tickets} tickets on one commit, ${b.label} lines, the whole suite as its gate: baselines measured`,
      measured: `${b.measured} measured, ${b.reused} reused (\`batch --parallel 2 ${b.options.join(' ')}\`, exit ${String(b.exit)}, ${s(b.wallMs)}); load average ${p.load.join(' → ')} on ${p.cpus} cores`,
      target: '1, not one per ticket',
      met: b.measured === 1,
    });
  return rows;
}

if (require.main === module) {
  const asked = process.argv.slice(2);
  const sizes = LARGE_SIZES.map((x) => x.label).filter((l) => !asked.length || asked.includes(l));
  measureLargeProject(sizes, !asked.length || asked.includes('batch')).then(
    (p) => process.stdout.write(`${JSON.stringify({ ...p, rows: largeProjectRows(p) }, null, 2)}\n`),
    (err: unknown) => {
      process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      process.exitCode = 1;
    },
  );
}
