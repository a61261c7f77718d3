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

/**
 * Time to verdict against the bare tools: a fixture ticket run by the CLI with the default gates
 * and the sandbox, then, in the same workspace on the code the run left, the project's `tsc
 * --noEmit`, its own tests and the ticket's rendered test, one after another with nothing around
 * them. The ratio is what the pipeline costs over the tools a verdict needs.
 */
export async function measureTimeToVerdict(tickets: readonly string[], cli = path.join(REPO, 'dist', 'cli.js')): Promise<TimeToVerdict> {
  const runs: VerdictTime[] = [];
  for (const ticket of tickets) {
    const ws = copyFixture();
    try {
      const run = await timed(
        process.execPath,
        [cli, 'run', `.tickets/${ticket}.ticket.json`, '--workspace', ws.root, '--model', 'scripted'],
        tmpdir(),
      );
      const runsDir = path.join(ws.root, '.ticket-runner', 'runs');
      const [runId] = readdirSync(runsDir);
      if (!runId) throw new Error(`${ticket}: the run left no log (exit ${String(run.code)}): ${run.output.slice(-400)}`);
      const events = runLog(ws.root, runId);
      const started = events.find((e) => e.type === 'run.started');
      const finished = events.find((e) => e.type === 'run.finished');
      const tsc = await timed(
        process.execPath,
        [path.join(ws.root, 'node_modules', 'typescript', 'bin', 'tsc'), '--noEmit', '-p', 'tsconfig.json'],
        ws.root,
      );
      const own = readdirSync(path.join(ws.root, 'test'))
        .filter((f) => f.endsWith('.test.ts'))
        .map((f) => `test/${f}`);
      const project = await timed(process.execPath, ['--import', 'tsx', '--test', ...own], ws.root);
      const rendered = await timed(process.execPath, ['--import', 'tsx', '--test', `test/ticket/${ticket}.test.ts`], ws.root);
      if (tsc.code !== 0 || project.code !== 0 || rendered.code !== 0)
        throw new Error(
          `${ticket}: a bare tool failed on the run's end state (tsc ${String(tsc.code)}, tests ${String(project.code)}, rendered ${String(rendered.code)})`,
        );
      const sumMs = tsc.ms + project.ms + rendered.ms;
      runs.push({
        ticket,
        outcome: `${finished?.outcome ?? `exit ${String(run.code)}`}`,
        sandbox: started?.sandbox?.on ? 'on' : `off${started?.sandbox?.detail ? ` (${started.sandbox.detail})` : ''}`,
        runMs: round(run.ms),
        bare: { typecheckMs: round(tsc.ms), projectTestsMs: round(project.ms), ticketTestsMs: round(rendered.ms), sumMs: round(sumMs) },
        ratio: round(run.ms / sumMs, 2),
        phasesMs: phases(events),
      });
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
    figure: `Time to verdict, ${r.ticket} (default gates, sandbox ${r.sandbox}): the run ÷ the bare tools`,
    measured: `run ${s(r.runMs)} (${r.outcome}; before the first write ${s(r.phasesMs.baseline)}, attempts ${s(r.phasesMs.attempts)}, gates ${s(r.phasesMs.gates)}) vs tsc ${s(r.bare.typecheckMs)} + the project's tests ${s(r.bare.projectTestsMs)} + the ticket's test ${s(r.bare.ticketTestsMs)}`,
    ratio: r.ratio,
    target: '≤ 1.5',
    met: r.ratio <= 1.5,
  }));
}
