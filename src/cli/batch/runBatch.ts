import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { decodeLog } from '../../core/run/logCodec';
import { reduceRun, type RunState } from '../../core/run/reducer';
import { batchEntry, batchJunit, batchReport, entryWithoutRun, type BatchEntry, type BatchReport } from '../../core/run/views/batchReport';
import { RUNS_DIR } from '../../node/store/fileRunStore';
import { exitForStatus } from '../exitCodes';
import { ticketIdOf } from './tickets';
import { treeMaker, type TicketTree } from './trees';

export type KeepPolicy = 'passed' | 'all' | 'none';

export interface BatchOptions {
  ws: string;
  tickets: readonly string[];
  parallel: number;
  keep: KeepPolicy;
  /** The run options every ticket gets, as `run` takes them (`--model scripted --gates none`). */
  runArgs: readonly string[];
  /** The `--model` words the resolve commands repeat. */
  modelOption: string;
  /** The batch's own folder: the trees, a copy of each run's log, the reports. */
  batchDir: string;
  /** Where the two report files go. */
  outDir: string;
  /** The built CLI each ticket runs in: one child process per ticket. */
  cliEntry: string;
  signal: AbortSignal;
  progress: (line: string) => void;
}

export interface BatchResult {
  report: BatchReport & { batchDir: string; mode: 'worktree' | 'copy'; commit: string | null; parallel: number };
  reportPath: string;
  junitPath: string;
}

/** The run a tree holds: a fresh tree has at most one, whatever its process printed. */
function loadTreeRun(tree: TicketTree): { state: RunState; dir: string } | null {
  const runs = path.join(tree.workspace, RUNS_DIR);
  const ids = existsSync(runs) ? readdirSync(runs).filter((n) => existsSync(path.join(runs, n, 'events.jsonl'))) : [];
  if (ids.length !== 1) return null;
  const dir = path.join(runs, ids[0]!);
  const file = path.join(dir, 'events.jsonl');
  return { state: reduceRun(ids[0]!, decodeLog(readFileSync(file, 'utf8'), file).events), dir };
}

interface ChildEnd {
  code: number | null;
  lastLine: string;
}

/**
 * One ticket's run as a child `ticket-runner run` in its own process group: a Ctrl-C in the
 * terminal reaches the batch only, which passes one SIGINT to each child, so each run records
 * its own cancel (a second signal would make a run exit without waiting).
 */
function runChild(o: BatchOptions, ticket: string, tree: TicketTree, tag: string): Promise<ChildEnd> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [o.cliEntry, 'run', ticket, '--workspace', tree.workspace, '--json', ...o.runArgs], { cwd: tree.workspace, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let heard = false;
    let cancelWanted = false;
    let lastLine = '';
    let pending = '';
    const say = (l: string) => {
      lastLine = l;
      o.progress(`[${tag}] ${l}`);
    };
    // A child killed before it set its own signal handler would end with no cancel on record:
    // it is told once it has said something, which it does only after it is set up.
    const cancel = () => {
      cancelWanted = true;
      if (heard && child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
    };
    child.stdout!.resume();
    child.stderr!.on('data', (d: Buffer) => {
      pending += d.toString();
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const l of lines) if (l.trim()) say(l);
      if (!heard) {
        heard = true;
        if (cancelWanted) cancel();
      }
    });
    o.signal.addEventListener('abort', cancel, { once: true });
    if (o.signal.aborted) cancel();
    child.on('close', (code) => {
      o.signal.removeEventListener('abort', cancel);
      if (pending.trim()) say(pending);
      resolve({ code, lastLine: lastLine.replace(/^ticket-runner:\s*/, '') });
    });
    child.on('error', (err) => resolve({ code: null, lastLine: err.message }));
  });
}

async function runOne(o: BatchOptions, maker: ReturnType<typeof treeMaker>, ticket: string): Promise<BatchEntry> {
  const id = ticketIdOf(ticket);
  const tree = maker.create(id);
  const end = await runChild(o, ticket, tree, id);
  const run = loadTreeRun(tree);
  if (!run) {
    // No log: the ticket was refused before its run began (its one line says why).
    maker.remove(tree);
    return entryWithoutRun(ticket, id, 'error', end.lastLine || `its process ended with code ${end.code} before the run began`, end.code);
  }
  // The log outlives the tree: a copy goes to the batch's folder, where show and merge-report read it.
  cpSync(run.dir, path.join(o.batchDir, 'runs', run.state.runId), { recursive: true });
  const status = run.state.status;
  let workspace: string | null = tree.workspace;
  let branch: string | null = null;
  if (o.keep !== 'all') {
    if (status === 'passed' && maker.mode === 'worktree') {
      try {
        branch = maker.keepAsBranch(tree, id, `${run.state.ticketId}: passed in ticket-runner run ${run.state.runId}`, o.keep !== 'none');
        workspace = null;
      } catch (err) {
        // The verdict stands; only where its change lives differs: the tree stays and the report says so.
        o.progress(`[${id}] warning: the passed change could not be kept on a branch (${err instanceof Error ? err.message : String(err)}); its worktree stays at ${tree.root}`);
      }
    } else if ((status === 'failed' || status === 'error') || (status === 'passed' && o.keep === 'none')) {
      maker.remove(tree);
      workspace = null;
    }
    // needsOperator, cancelled and unfinished runs keep their tree: resolve and resume run there.
  }
  return batchEntry(ticket, run.state, { exitCode: end.code, expectedExit: exitForStatus(status), workspace, branch, modelOption: o.modelOption });
}

/** Runs every ticket, at most `parallel` at a time, each in its own tree; writes the report and the JUnit file. */
export async function runBatch(o: BatchOptions): Promise<BatchResult> {
  const started = Date.now();
  const maker = treeMaker(o.ws, path.join(o.batchDir, 'trees'), o.tickets.map(ticketIdOf));
  mkdirSync(o.batchDir, { recursive: true });
  o.progress(`batch: ${o.tickets.length} ticket(s), ${o.parallel} at a time, each in its own ${maker.mode === 'worktree' ? `git worktree of ${maker.commit!.slice(0, 12)}` : 'copy of the workspace'} under ${path.join(o.batchDir, 'trees')}`);
  const entries: (BatchEntry | undefined)[] = new Array(o.tickets.length);
  let next = 0;
  let done = 0;
  const worker = async () => {
    while (next < o.tickets.length && !o.signal.aborted) {
      const i = next++;
      const ticket = o.tickets[i]!;
      o.progress(`batch: ${ticket} started`);
      try {
        entries[i] = await runOne(o, maker, ticket);
      } catch (err) {
        entries[i] = entryWithoutRun(ticket, ticketIdOf(ticket), 'error', `the batch could not run it: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`, null);
      }
      done++;
      const e = entries[i]!;
      o.progress(`batch: ${done}/${o.tickets.length} ${e.ticketId} ${e.outcome}: ${e.stop}`);
    }
  };
  await Promise.all(Array.from({ length: Math.min(o.parallel, o.tickets.length) }, worker));
  const tickets = o.tickets.map((t, i) => entries[i] ?? entryWithoutRun(t, ticketIdOf(t), 'notStarted', 'not started: the batch was cancelled first', null));
  const report = { ...batchReport(tickets, Date.now() - started), batchDir: o.batchDir, mode: maker.mode, commit: maker.commit, parallel: o.parallel };
  mkdirSync(o.outDir, { recursive: true });
  const reportPath = path.join(o.outDir, 'batch-report.json');
  const junitPath = path.join(o.outDir, 'batch-junit.xml');
  writeFileSync(reportPath, JSON.stringify(report, null, 2) + '\n');
  writeFileSync(junitPath, batchJunit(report));
  return { report, reportPath, junitPath };
}
