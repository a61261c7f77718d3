import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { decodeLog } from '../../core/run/logCodec';
import { reduceRun, type RunState } from '../../core/run/reducer';
import { batchEntry, batchJunit, batchReport, entryWithoutRun, type BatchEntry, type BatchReport } from '../../core/run/views/batchReport';
import { RUNS_DIR } from '../../node/store/fileRunStore';
import { exitForStatus } from '../exitCodes';
import { CallPermits } from './callPermits';
import { BatchSlot, killGroup, type Live } from './batchSlot';
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
  /** The built CLI the slots run: one process per slot, which runs its tickets one after another. */
  cliEntry: string;
  /** Model calls in flight at once per API key, across every ticket's process. */
  maxConcurrentCalls?: number;
  /** Dollars over the whole batch: no call (and no ticket) starts once they are spent. */
  maxDollars?: number;
  signal: AbortSignal;
  progress: (line: string) => void;
}

export interface BatchResult {
  report: BatchReport & {
    batchDir: string;
    mode: 'worktree' | 'copy';
    commit: string | null;
    parallel: number;
    calls: { maxConcurrent: number | null; peakConcurrent: number };
  };
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

async function runOne(o: BatchOptions, maker: ReturnType<typeof treeMaker>, ticket: string, slot: BatchSlot): Promise<BatchEntry> {
  const id = ticketIdOf(ticket);
  const tree = maker.create(id);
  const end = await slot.run(['run', ticket, '--workspace', tree.workspace, '--json', ...o.runArgs], tree.workspace, id);
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
        o.progress(
          `[${id}] warning: the passed change could not be kept on a branch (${err instanceof Error ? err.message : String(err)}); its worktree stays at ${tree.root}`,
        );
      }
    } else if (status === 'failed' || status === 'error' || (status === 'passed' && o.keep === 'none')) {
      maker.remove(tree);
      workspace = null;
    }
    // needsOperator, cancelled and unfinished runs keep their tree: resolve and resume run there.
  }
  return batchEntry(ticket, run.state, {
    exitCode: end.code,
    expectedExit: exitForStatus(status),
    workspace,
    branch,
    modelOption: o.modelOption,
  });
}

/** Runs every ticket, at most `parallel` at a time, each in its own tree; writes the report and the JUnit file. */
export async function runBatch(o: BatchOptions): Promise<BatchResult> {
  const started = Date.now();
  const maker = treeMaker(o.ws, path.join(o.batchDir, 'trees'), o.tickets.map(ticketIdOf));
  mkdirSync(o.batchDir, { recursive: true });
  o.progress(
    `batch: ${o.tickets.length} ticket(s), ${o.parallel} at a time, each in its own ${maker.mode === 'worktree' ? `git worktree of ${maker.commit!.slice(0, 12)}` : 'copy of the workspace'} under ${path.join(o.batchDir, 'trees')}`,
  );
  const entries: (BatchEntry | undefined)[] = Array.from({ length: o.tickets.length }, () => undefined);
  const live: Live = { children: new Set(), permits: new CallPermits({ maxConcurrent: o.maxConcurrentCalls, maxDollars: o.maxDollars }) };
  // A second Ctrl-C makes this process exit at once (see main): its tickets' processes go with it.
  const killChildren = () => {
    for (const child of live.children) if (child.pid !== undefined) killGroup(child.pid);
  };
  process.on('exit', killChildren);
  let next = 0;
  let done = 0;
  const worker = async () => {
    const slot = new BatchSlot({ cliEntry: o.cliEntry, signal: o.signal, progress: o.progress, live });
    try {
      await workOn(slot);
    } finally {
      await slot.close();
    }
  };
  const workOn = async (slot: BatchSlot) => {
    while (next < o.tickets.length && !o.signal.aborted && !live.permits.exhausted) {
      const i = next++;
      const ticket = o.tickets[i]!;
      o.progress(`batch: ${ticket} started`);
      let e: BatchEntry;
      try {
        e = await runOne(o, maker, ticket, slot);
      } catch (err) {
        e = entryWithoutRun(
          ticket,
          ticketIdOf(ticket),
          'error',
          `the batch could not run it: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`,
          null,
        );
      }
      entries[i] = e;
      done++;
      o.progress(`batch: ${done}/${o.tickets.length} ${e.ticketId} ${e.outcome}: ${e.stop}`);
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(o.parallel, o.tickets.length) }, worker));
  } finally {
    process.off('exit', killChildren);
    live.permits.close();
  }
  const spent = live.permits.spentUsd;
  const unstarted =
    o.signal.aborted || o.maxDollars === undefined || !live.permits.exhausted
      ? 'not started: the batch was cancelled first'
      : `not started: the batch's dollar budget was spent ($${spent.toFixed(4)} of $${o.maxDollars})`;
  const tickets = o.tickets.map((t, i) => entries[i] ?? entryWithoutRun(t, ticketIdOf(t), 'notStarted', unstarted, null));
  const budget = o.maxDollars === undefined ? undefined : { maxDollars: o.maxDollars, spentUsd: spent, reached: live.permits.exhausted };
  const report = {
    ...batchReport(tickets, Date.now() - started, budget),
    batchDir: o.batchDir,
    mode: maker.mode,
    commit: maker.commit,
    parallel: o.parallel,
    calls: { maxConcurrent: o.maxConcurrentCalls ?? null, peakConcurrent: Math.max(0, ...live.permits.peak.values()) },
  };
  mkdirSync(o.outDir, { recursive: true });
  const reportPath = path.join(o.outDir, 'batch-report.json');
  const junitPath = path.join(o.outDir, 'batch-junit.xml');
  writeFileSync(reportPath, JSON.stringify(report, null, 2) + '\n');
  writeFileSync(junitPath, batchJunit(report));
  return { report, reportPath, junitPath };
}
