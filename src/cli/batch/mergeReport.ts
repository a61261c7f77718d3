import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { UserInputError } from '../../core/errors';
import { decodeLog } from '../../core/run/logCodec';
import { reduceRun } from '../../core/run/reducer';
import { batchEntry, batchReport, type BatchEntry, type BatchReport } from '../../core/run/views/batchReport';

const MAX_DEPTH = 5;

/** Every run log under a folder: a run folder itself, or an artifact folder that holds run folders. */
function findLogs(dir: string, depth = 0, out: string[] = []): string[] {
  const file = path.join(dir, 'events.jsonl');
  if (existsSync(file)) return out.concat(file);
  if (depth >= MAX_DEPTH) return out;
  for (const name of readdirSync(dir).sort()) {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) out = findLogs(p, depth + 1, out);
  }
  return out;
}

/**
 * One batch report from the logs of runs that ran anywhere (a CI matrix's artifacts). The
 * outcome, attempts, routes and cost come from each log, as `batch` takes them; the exit code
 * is the one `run` gives that outcome. A run id met twice is one run (an artifact downloaded twice).
 */
export function mergeReport(dirs: readonly string[], exitCodeOf: (status: BatchEntry['outcome']) => number): BatchReport {
  if (!dirs.length) throw new UserInputError('merge-report needs the folders that hold the runs (a run folder, or a folder of them)');
  const seen = new Map<string, BatchEntry>();
  for (const d of dirs) {
    const dir = path.resolve(d);
    if (!existsSync(dir) || !statSync(dir).isDirectory())
      throw new UserInputError(`${d} is not a folder: give the folders the runs were downloaded to`);
    const logs = findLogs(dir);
    if (!logs.length)
      throw new UserInputError(`no run log (events.jsonl) under ${d}: give a run folder (.ticket-runner/runs/<id>) or a folder of them`);
    for (const file of logs) {
      const events = decodeLog(readFileSync(file, 'utf8'), file).events;
      const runId = events[0]?.runId ?? path.basename(path.dirname(file));
      const state = reduceRun(runId, events);
      if (!seen.has(runId)) seen.set(runId, batchEntry(state.ticketPath, state, { exitCode: exitCodeOf(state.status), workspace: null }));
    }
  }
  const tickets = [...seen.values()].sort(
    (a, b) => a.ticket.localeCompare(b.ticket, 'en', { numeric: true }) || (a.runId ?? '').localeCompare(b.runId ?? ''),
  );
  return batchReport(tickets, null);
}
