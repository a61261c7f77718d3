import { UserInputError } from '../errors';
import type { RunStorePort } from '../ports/runStore';
import type { WorkspacePort } from '../ports/workspace';
import type { HashFn } from '../ports/clock';
import type { EventOf } from '../schema/events';
import { baselineOf, lastWrittenOf, workspaceBaselineOf } from '../run/baseline';
import { wholeLog } from '../run/logCodec';
import { reduceRun, type RunState } from '../run/reducer';
import { RunLog } from '../run/runLog';
import { clearInterruptedWrites } from './interruptedWrites';
import type { PipelineDeps } from '../stages/common/context';
import { outcomeWords } from '../run/views/words';

/** What rollback will do to one path. */
export interface RollbackStep {
  path: string;
  /** restore: write the content (and mode) it had before the run; delete: the run created it. */
  action: 'restore' | 'delete';
  /** The blob of the content before the run; null when the run created the file. */
  before: string | null;
  /** Its permission bits before the run, when the log recorded them. */
  mode: number | null;
  /** Someone changed the file since the run last wrote it: rolling back would lose that change. */
  changedSinceRun: boolean;
}

export interface RollbackPlan {
  runId: string;
  steps: RollbackStep[];
  /** The paths of the steps that would overwrite or delete a change made after the run. */
  conflicts: string[];
  /** Folders the run created, removed when they are empty once its files are gone. */
  folders: string[];
}

/** Rollback refused: files changed since the run last wrote them. Nothing was changed. */
export class RollbackConflictError extends UserInputError {
  override readonly name = 'RollbackConflictError';
  constructor(
    readonly runId: string,
    readonly conflicts: string[],
  ) {
    super(
      `rollback of ${runId} refused: ${conflicts.length} file(s) changed since the run last wrote them: ${conflicts.join(', ')}. ` +
        'Nothing was changed. Save those edits elsewhere, or pass --force to overwrite them.',
    );
  }
}

type RollbackDeps = Pick<PipelineDeps, 'store' | 'workspace' | 'hash'>;

async function loadRun(store: RunStorePort, runId: string) {
  return wholeLog(await store.load(runId), store.logPath(runId)).events;
}

async function planFrom(
  runId: string,
  events: Awaited<ReturnType<typeof loadRun>>,
  ws: WorkspacePort,
  hash: HashFn,
): Promise<RollbackPlan> {
  const last = lastWrittenOf(events);
  const { modes, createdFolders } = workspaceBaselineOf(events);
  const steps: RollbackStep[] = [];
  for (const [path, before] of [...baselineOf(events)].sort(([a], [b]) => a.localeCompare(b))) {
    const current = await ws.readFile(path);
    const currentHash = current === null ? null : hash(current);
    const mode = modes.get(path) ?? null;
    // Already as it was before the run (a second rollback, an undone edit): nothing to do.
    if (currentHash === before && (before === null || mode === null || (await ws.fileMode(path)) === mode)) continue;
    steps.push({
      path,
      action: before === null ? 'delete' : 'restore',
      before,
      mode,
      changedSinceRun: currentHash !== (last.get(path) ?? null),
    });
  }
  return {
    runId,
    steps,
    conflicts: steps.filter((s) => s.changedSinceRun).map((s) => s.path),
    folders: [...createdFolders].sort((a, b) => b.length - a.length || a.localeCompare(b)),
  };
}

/** What a rollback of the run would do, and which files it would take from the operator: read-only. */
export async function planRollback(deps: RollbackDeps, runId: string): Promise<RollbackPlan> {
  return planFrom(runId, await loadRun(deps.store, runId), deps.workspace, deps.hash);
}

/** An earlier run whose writes are still in the workspace as it left them. */
export interface LeftoverRun {
  runId: string;
  ticketId: string;
  status: RunState['status'];
  /** Its files that still hold what it wrote (a file changed since is yours now, and not listed). */
  files: string[];
}

export interface LeftoverOptions {
  /**
   * Name the runs that passed too. A passed run's change is what it was run for, and the next
   * ticket builds on it; only a run that replays recorded answers needs the project as it was
   * recorded, which a passed run's change no longer is.
   */
  passed?: boolean;
  /**
   * Name a run whose files were all written over since, listing those files too. The recorded
   * sample rolls every earlier run back, newest first: once a later run that wrote over a file is
   * rolled back, the file holds the earlier run's bytes again and its rollback goes through. A
   * file the user changed still stops that rollback, which refuses to overwrite it.
   */
  overwritten?: boolean;
  /** At most this many runs are read, newest first. */
  limit?: number;
}

/**
 * The runs among `states` that ended, did not pass (or passed, when asked), were not rolled back,
 * and whose files still hold what they wrote: a new run builds on their changes and rendered
 * tests, so the user is told before it starts. Newest first; at most `limit` runs are read.
 */
export async function leftoverRuns(deps: RollbackDeps, states: readonly RunState[], opts: LeftoverOptions = {}): Promise<LeftoverRun[]> {
  const out: LeftoverRun[] = [];
  const candidates = states
    .filter((s) => s.finished && (opts.passed || s.status !== 'passed') && !s.rolledBack)
    .sort((a, b) => b.runId.localeCompare(a.runId));
  for (const state of candidates.slice(0, opts.limit ?? 20)) {
    const plan = await planRollback(deps, state.runId).catch(() => undefined);
    const files = plan?.steps.filter((st) => opts.overwritten || !st.changedSinceRun).map((st) => st.path) ?? [];
    if (files.length) out.push({ runId: state.runId, ticketId: state.ticketId, status: state.status, files });
  }
  return out;
}

/**
 * `leftoverRuns` over every run of the store, for a host that holds no states of its own (the
 * CLI, the scripted model). A log that cannot be read is left out: naming it is `list`'s job.
 */
export async function earlierChanges(deps: RollbackDeps, opts: LeftoverOptions = {}): Promise<LeftoverRun[]> {
  return leftoverRuns(deps, await storedRuns(deps.store), opts);
}

/** Every run of the store, reduced; a log that cannot be read is left out (`list` names it). */
export async function storedRuns(store: RunStorePort): Promise<RunState[]> {
  const states: RunState[] = [];
  for (const id of await store.listRuns()) {
    const loaded = await store.load(id).catch(() => undefined);
    if (loaded) states.push(reduceRun(id, loaded.events));
  }
  return states;
}

/** "BLOG-1's change (run …, passed) is still in the workspace", for one earlier run or several. */
export function stillInWorkspace(left: readonly LeftoverRun[]): string {
  const names = left.map(leftoverWords);
  const list = names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]!}` : (names[0] ?? '');
  return `${list} ${names.length > 1 ? 'are' : 'is'} still in the workspace`;
}

/** The commands that roll back `left`, newest first: "ticket-runner rollback <id>, then ticket-runner rollback <id>". */
export function rollbackCommands(left: readonly Pick<LeftoverRun, 'runId'>[]): string {
  return left.map((l) => `ticket-runner rollback ${l.runId}`).join(', then ');
}

/** An earlier run's change, named for the user: "BLOG-1's change (run 20261127-083051-afbc27, passed)". */
export function leftoverWords(l: Pick<LeftoverRun, 'runId' | 'ticketId' | 'status'>): string {
  return `${l.ticketId}'s change (run ${l.runId}, ${outcomeWords(l.status)})`;
}

/**
 * Puts the workspace back as it was before the run: each file's content and mode, the files
 * and folders the run created removed, the files it changed and that are gone recreated. It
 * first compares every file with what the run last wrote there: when someone changed one
 * since, it refuses and changes nothing, unless `force`.
 */
export async function rollbackRun(
  deps: PipelineDeps,
  runId: string,
  opts: { force?: boolean } = {},
): Promise<{ runId: string; state: RunState; logPath: string; rolledBack: EventOf<'run.rolledBack'> }> {
  const events = await loadRun(deps.store, runId);
  const plan = await planFrom(runId, events, deps.workspace, deps.hash);
  if (plan.conflicts.length && !opts.force) throw new RollbackConflictError(runId, plan.conflicts);
  const log = new RunLog(runId, deps.store, deps.clock, events);
  if (deps.onEvent) log.onEvent(deps.onEvent);
  const files: { path: string; restored: 'content' | 'deleted' }[] = [];
  for (const step of plan.steps) {
    if (step.before === null) {
      await deps.workspace.deleteFile(step.path);
      files.push({ path: step.path, restored: 'deleted' });
    } else {
      await deps.workspace.writeFile(step.path, await log.getBlob(step.before));
      if (step.mode !== null) await deps.workspace.setFileMode(step.path, step.mode);
      files.push({ path: step.path, restored: 'content' });
    }
  }
  await clearInterruptedWrites(deps.workspace, events);
  const folders = [];
  for (const f of plan.folders) if (await deps.workspace.removeEmptyFolder(f)) folders.push(f);
  const rolledBack = (await log.emit({
    type: 'run.rolledBack',
    files,
    folders,
    forced: plan.conflicts.length ? plan.conflicts : undefined,
  })) as EventOf<'run.rolledBack'>;
  return { runId, state: reduceRun(runId, log.events), logPath: deps.store.logPath(runId), rolledBack };
}
