import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { copyFixture } from '../test/support/tempWorkspace';
import { round } from './measure';
import type { Row } from './report';

const REPO = path.resolve(__dirname, '..');

export interface VerdictTime {
  ticket: string;
  outcome: string;
  sandbox: string;
  /** The CLI's run, end to end (default gates, scripted model, started outside the workspace). */
  runMs: number;
  /** The bare tools a verdict needs, one after another in the same workspace, on the run's end state. */
  bare: { typecheckMs: number; projectTestsMs: number; ticketTestsMs: number; sumMs: number };
  ratio: number;
  /** Whether the run took its baseline from an earlier run on the same code (every round after the first). */
  reused: boolean;
  /** Where the run's time went, from its log: before the first write, the attempts, the gates. */
  phasesMs: { baseline: number; attempts: number; gates: number };
}

export interface TimeToVerdict {
  runs: VerdictTime[];
}

/** Runs a command to its end; its wall time and exit code. */
export function timed(command: string, args: string[], cwd: string): Promise<{ ms: number; code: number | null; output: string }> {
  const t = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: { ...process.env, FORCE_COLOR: '0' } });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ ms: performance.now() - t, code, output }));
  });
}

export interface LoggedEvent {
  type: string;
  ts: string;
  sandbox?: { on?: boolean; detail?: string };
  outcome?: string;
  reusedFrom?: unknown;
}

/** A run's log, as the run wrote it. */
export function runLog(root: string, runId: string): LoggedEvent[] {
  return readFileSync(path.join(root, '.ticket-runner', 'runs', runId, 'events.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as LoggedEvent);
}

/** Where a run's time went, from its log: before the first write, the attempts, the gates. */
export function phases(events: LoggedEvent[]): VerdictTime['phasesMs'] {
  const at = (type: string, last = false): number => {
    const found = last ? [...events].reverse().find((e) => e.type === type) : events.find((e) => e.type === type);
    return found ? Date.parse(found.ts) : NaN;
  };
  const start = at('run.started');
  const firstWrite = at('files.written');
  const firstGate = at('gate.ran');
  const end = at('run.finished');
  // A gate's event is written when it ends: the gates began when the last attempt's tests ended.
  const lastTests =
    events
      .filter((e) => e.type === 'tests.ran' || e.type === 'projectTests.ran')
      .map((e) => Date.parse(e.ts))
      .filter((t) => t < firstGate)
      .pop() ?? firstGate;
  return { baseline: firstWrite - start, attempts: lastTests - firstWrite, gates: end - lastTests };
}

/** A run's log, by the one run the workspace holds that `known` does not. */
function newRun(root: string, known: ReadonlySet<string>): { runId: string; events: LoggedEvent[] } | undefined {
  const runsDir = path.join(root, '.ticket-runner', 'runs');
  const runId = readdirSync(runsDir).find((id) => !known.has(id));
  return runId === undefined ? undefined : { runId, events: runLog(root, runId) };
}

/** The run, then the bare tools on the code it left, one after another: one measured round. */
async function oneRound(ticket: string, root: string, cli: string, known: Set<string>): Promise<VerdictTime & { runId: string }> {
  const run = await timed(
    process.execPath,
    [cli, 'run', `.tickets/${ticket}.ticket.json`, '--workspace', root, '--model', 'scripted'],
    tmpdir(),
  );
  const logged = newRun(root, known);
  if (!logged) throw new Error(`${ticket}: the run left no log (exit ${String(run.code)}): ${run.output.slice(-400)}`);
  known.add(logged.runId);
  const { events } = logged;
  const started = events.find((e) => e.type === 'run.started');
  const finished = events.find((e) => e.type === 'run.finished');
  const tsc = await timed(
    process.execPath,
    [path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '--noEmit', '-p', 'tsconfig.json'],
    root,
  );
  const own = readdirSync(path.join(root, 'test'))
    .filter((f) => f.endsWith('.test.ts'))
    .map((f) => `test/${f}`);
  const project = await timed(process.execPath, ['--import', 'tsx', '--test', ...own], root);
  const rendered = await timed(process.execPath, ['--import', 'tsx', '--test', `test/ticket/${ticket}.test.ts`], root);
  if (tsc.code !== 0 || project.code !== 0 || rendered.code !== 0)
    throw new Error(
      `${ticket}: a bare tool failed on the run's end state (tsc ${String(tsc.code)}, tests ${String(project.code)}, rendered ${String(rendered.code)})`,
    );
  const sumMs = tsc.ms + project.ms + rendered.ms;
  return {
    runId: logged.runId,
    ticket,
    outcome: `${finished?.outcome ?? `exit ${String(run.code)}`}`,
    sandbox: started?.sandbox?.on ? 'on' : `off${started?.sandbox?.detail ? ` (${started.sandbox.detail})` : ''}`,
    reused: events.some((e) => e.type === 'projectTests.baseline' && e.reusedFrom !== undefined),
    runMs: round(run.ms),
    bare: { typecheckMs: round(tsc.ms), projectTestsMs: round(project.ms), ticketTestsMs: round(rendered.ms), sumMs: round(sumMs) },
    ratio: round(run.ms / sumMs, 2),
    phasesMs: phases(events),
  };
}

/** Puts the workspace back as it was before `runId`, as the user's Roll Back does. */
async function rollBack(root: string, cli: string, runId: string): Promise<void> {
  const r = await timed(process.execPath, [cli, 'rollback', runId, '--workspace', root], tmpdir());
  if (r.code !== 0) throw new Error(`rollback of ${runId} failed (exit ${String(r.code)}): ${r.output.slice(-400)}`);
}

/**
 * Time to verdict against the bare tools: a fixture ticket run by the CLI with the default gates
 * and the sandbox, then, in the same workspace on the code the run left, the project's `tsc
 * --noEmit`, its own tests and the ticket's rendered test, one after another with nothing around
 * them. The ratio is what the pipeline costs over the tools a verdict needs. The first run on a
 * fresh copy measures the project before its first write; it is rolled back, and `rounds` more
 * runs of the same ticket on the same code then reuse that measurement, as every run after the
 * first on a project does until something the baseline reads changes.
 */
export async function measureTimeToVerdict(
  tickets: readonly string[],
  cli = path.join(REPO, 'dist', 'cli.js'),
  rounds = 3,
): Promise<TimeToVerdict> {
  const runs: VerdictTime[] = [];
  for (const ticket of tickets) {
    const ws = copyFixture();
    const known = new Set<string>();
    try {
      for (let n = 0; n <= rounds; n++) {
        const { runId, ...measured } = await oneRound(ticket, ws.root, cli, known);
        runs.push(measured);
        await rollBack(ws.root, cli, runId);
      }
    } finally {
      ws.dispose();
    }
  }
  return { runs };
}

/** One row per ticket: the run ÷ the bare tools, with where the run's time went. */
export function timeToVerdictRows(t: TimeToVerdict): Row[] {
  const s = (ms: number) => `${round(ms / 1000, 1)} s`;
  return t.runs.map((r) => ({
    figure: `Time to verdict, ${r.ticket} (default gates, sandbox ${r.sandbox}), ${r.reused ? 'the project measured by an earlier run' : 'the first run on the project'}: the run ÷ the bare tools`,
    measured: `run ${s(r.runMs)} (${r.outcome}; before the first write ${s(r.phasesMs.baseline)}, attempts ${s(r.phasesMs.attempts)}, gates ${s(r.phasesMs.gates)}) vs tsc ${s(r.bare.typecheckMs)} + the project's tests ${s(r.bare.projectTestsMs)} + the ticket's test ${s(r.bare.ticketTestsMs)}`,
    ratio: r.ratio,
    // The goal is a run's on a project it already knows; the first run measures the project too.
    ...(r.reused ? { target: '≤ 1.5', met: r.ratio <= 1.5 } : {}),
  }));
}
