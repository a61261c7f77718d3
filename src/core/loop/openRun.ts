import { wholeLog } from '../run/logCodec';
import { reduceRun } from '../run/reducer';
import { RunLog } from '../run/runLog';
import type { PipelineDeps } from '../stages/common/context';
import { trackedWorkspace } from './trackedWorkspace';

/** A run's log, open to append to; its events reach the host's listener as they are written. */
export function openLog(deps: PipelineDeps, runId: string, existing: Parameters<typeof reduceRun>[1] = []): RunLog {
  const log = new RunLog(runId, deps.store, deps.clock, existing, deps.redact);
  if (deps.onEvent) log.onEvent(deps.onEvent);
  return log;
}

/**
 * A run's events, loaded to append to. The store's load already refuses a damaged log (a bad
 * line, events out of order: decodeLog); a last line cut short by a crash, which a view reads
 * around, is refused here too, since the next event would be glued onto it (wholeLog).
 */
export async function loadToAppend(deps: PipelineDeps, runId: string) {
  return wholeLog(await deps.store.load(runId), deps.store.logPath(runId));
}

/**
 * The run's time in milliseconds, read from its clock port like its events' stamps, so the
 * wall-time budget counts the same time the log shows (and a test's clock can spend it).
 */
export const runClock = (deps: Pick<PipelineDeps, 'clock'>) => (): number => deps.clock.now().getTime();

/** The dependencies of a run that writes: its workspace records what rollback needs (trackedWorkspace). */
export function writingDeps(deps: PipelineDeps, log: RunLog): PipelineDeps {
  return { ...deps, workspace: trackedWorkspace(deps.workspace, log, deps.hash) };
}
