import type { RunResult } from '../core';
import { wholeLog } from '../core/run/logCodec';
import { reduceRun, type RunState } from '../core/run/reducer';
import { formatRunReport } from '../core/run/views/report';
import type { RunEvent } from '../core/schema/events';
import { withRunResources, type WiredDeps } from '../node/runResources';
import { FileRunStore } from '../node/store/fileRunStore';
import { checkModelChoice, wireNodeDeps, type WireOptions } from '../node/wire';
import type { CommandInput, Io } from './command';
import { exitForStatus } from './exitCodes';
import { progressLine } from './progress';

/**
 * A command's run resources (`withRunResources`): the workspace lock, named by the command line,
 * then the wiring, released whatever way `body` ends. A missing key is said before the lock, so
 * it leaves no `.ticket-runner/` behind.
 */
export function openRun<T>(
  input: Pick<CommandInput<unknown>, 'argv' | 'io'>,
  wire: WireOptions,
  body: (deps: WiredDeps) => Promise<T>,
): Promise<T> {
  checkModelChoice(wire);
  return withRunResources(
    {
      workspaceRoot: wire.workspaceRoot,
      holder: `ticket-runner ${input.argv.join(' ')}`,
      warn: (m) => input.io.err(`warning: ${m}`),
      wire: () => wireNodeDeps(wire),
    },
    body,
  );
}

/** A run's state from its whole log: a command that appends to the log refuses one with a torn line. */
export async function loadRun(ws: string, runId: string): Promise<RunState> {
  const store = new FileRunStore(ws);
  return reduceRun(runId, wholeLog(await store.load(runId), store.logPath(runId)).events);
}

/** The run's progress on stderr, one line per event worth a glance. */
export const progressTo =
  (io: Io) =>
  (e: RunEvent): void => {
    const line = progressLine(e);
    if (line) io.err(line);
  };

/** A run's report (or, with --json, its state) on stdout; the exit code says its outcome. */
export function printRun(io: Io, json: boolean | undefined, result: RunResult): number {
  if (json) io.out(JSON.stringify({ runId: result.runId, logPath: result.logPath, state: result.state }, null, 2));
  else io.out(formatRunReport(result.state) + `\nLog: ${result.logPath}`);
  return exitForStatus(result.state.status);
}
