import * as path from 'node:path';
import * as vscode from 'vscode';
import { errorMessage } from '../core/errors';
import type { PipelineDeps } from '../core/stages/context';
import { applyEvent, emptyRunState, reduceRun, type RunState } from '../core/run/reducer';
import type { RunEvent } from '../core/schema/events';
import { FileRunStore, RUNS_DIR } from '../node/store/fileRunStore';
import { acquireWorkspaceLock, ownerProbe } from '../node/store/workspaceLock';
import { displayStatus, type DisplayStatus } from '../core/run/liveness';
import { showMessage } from './messages';

/** A run known to the window: which folder it lives in, and its state reduced from its log. */
export interface KnownRun {
  folder: vscode.WorkspaceFolder;
  state: RunState;
}

export type DepsFactory = (folder: vscode.WorkspaceFolder, ticketPath: string, onEvent: (e: RunEvent) => void) => Promise<PipelineDeps>;

/**
 * The window's view of every run, in every workspace folder: loaded from the logs on disk,
 * kept live from the logs' file watcher and from the RunLog of the runs this window drives.
 * It observes; the core owns the runs. Every view (tree, webview) subscribes to onDidChangeRun.
 */
export class RunService implements vscode.Disposable {
  private readonly runs = new Map<string, KnownRun>();
  private readonly stores = new Map<string, FileRunStore>();
  private readonly active = new Map<string, AbortController>();
  private readonly pendingReload = new Map<string, ReturnType<typeof setTimeout>>();
  private readonly disposables: vscode.Disposable[] = [];
  private readonly _onDidChangeRun = new vscode.EventEmitter<string | undefined>();
  /** Fires with a runId when that run changed, or undefined when the list changed. */
  readonly onDidChangeRun = this._onDidChangeRun.event;

  constructor(
    private readonly log: vscode.LogOutputChannel,
    private readonly depsFor: DepsFactory,
  ) {
    this.disposables.push(this._onDidChangeRun);
    for (const folder of vscode.workspace.workspaceFolders ?? []) this.watch(folder);
    this.disposables.push(
      vscode.workspace.onDidChangeWorkspaceFolders((e) => {
        for (const f of e.added) this.watch(f);
        void this.refresh();
      }),
    );
  }

  store(folder: vscode.WorkspaceFolder): FileRunStore {
    let s = this.stores.get(folder.uri.fsPath);
    if (!s) {
      s = new FileRunStore(folder.uri.fsPath);
      this.stores.set(folder.uri.fsPath, s);
    }
    return s;
  }

  private watch(folder: vscode.WorkspaceFolder): void {
    const pattern = new vscode.RelativePattern(folder, `${RUNS_DIR.split(path.sep).join('/')}/**/events.jsonl`);
    const watcher = vscode.workspace.createFileSystemWatcher(pattern);
    const onChange = (uri: vscode.Uri) => this.scheduleReload(folder, path.basename(path.dirname(uri.fsPath)));
    watcher.onDidCreate(onChange, undefined, this.disposables);
    watcher.onDidChange(onChange, undefined, this.disposables);
    watcher.onDidDelete(
      (uri) => {
        const runId = path.basename(path.dirname(uri.fsPath));
        if (this.runs.delete(runId)) this._onDidChangeRun.fire(undefined);
      },
      undefined,
      this.disposables,
    );
    this.disposables.push(watcher);
  }

  /** Coalesces bursts of appends (a run writes many lines a second) into one reload. */
  private scheduleReload(folder: vscode.WorkspaceFolder, runId: string): void {
    if (this.active.has(runId)) return; // Live runs are fed by their RunLog, line by line.
    clearTimeout(this.pendingReload.get(runId));
    this.pendingReload.set(
      runId,
      setTimeout(() => {
        this.pendingReload.delete(runId);
        void this.reload(folder, runId);
      }, 150),
    );
  }

  async reload(folder: vscode.WorkspaceFolder, runId: string): Promise<RunState | undefined> {
    try {
      const loaded = await this.store(folder).load(runId);
      if (loaded.torn) this.log.warn(`run ${runId}: the last line of its log is torn (${loaded.torn.error}); shown without it`);
      const isNew = !this.runs.has(runId);
      const state = reduceRun(runId, loaded.events);
      this.runs.set(runId, { folder, state });
      this._onDidChangeRun.fire(isNew ? undefined : runId);
      return state;
    } catch (err) {
      this.log.error(`run ${runId}: cannot load its log: ${errorMessage(err)}`);
      return undefined;
    }
  }

  /** Loads every run of every folder from disk. */
  async refresh(): Promise<void> {
    this.runs.clear();
    for (const folder of vscode.workspace.workspaceFolders ?? []) {
      const ids = await this.store(folder).listRuns().catch(() => []);
      for (const id of ids) {
        try {
          const loaded = await this.store(folder).load(id);
          this.runs.set(id, { folder, state: reduceRun(id, loaded.events) });
        } catch (err) {
          this.log.error(`run ${id}: cannot load its log: ${errorMessage(err)}`);
        }
      }
    }
    this._onDidChangeRun.fire(undefined);
  }

  /** Newest first. */
  list(): KnownRun[] {
    return [...this.runs.values()].sort((a, b) => b.state.runId.localeCompare(a.state.runId));
  }

  get(runId: string): KnownRun | undefined {
    return this.runs.get(runId);
  }

  /** A run's status with what the log cannot say: a run this window does not drive, whose owner no longer holds the lock, was interrupted. */
  statusOf(runId: string): DisplayStatus | undefined {
    const known = this.runs.get(runId);
    if (!known) return undefined;
    if (this.active.has(runId)) return known.state.status;
    return displayStatus(known.state, ownerProbe(known.folder.uri.fsPath));
  }

  isActive(runId: string): boolean {
    return this.active.has(runId);
  }

  /**
   * Drives one pipeline call (start, resolve) with live updates: the deps' onEvent folds each
   * event into the state as the RunLog writes it. The caller's signal cancels the run; the
   * core records the cancel as run.finished cancelled.
   */
  async drive<T>(
    folder: vscode.WorkspaceFolder,
    ticketPath: string,
    signal: AbortSignal,
    body: (deps: PipelineDeps) => Promise<T>,
    onEvent?: (e: RunEvent) => void,
  ): Promise<T> {
    // The same lock as the CLI's: one run per workspace, whichever tool starts it.
    const lock = acquireWorkspaceLock(folder.uri.fsPath, `the VS Code extension (window pid ${process.pid})`, (m) => {
      this.log.warn(m);
      void showMessage('warning', `Ticket Runner ${m}.`);
    });
    const controller = new AbortController();
    const abort = () => controller.abort();
    signal.addEventListener('abort', abort, { once: true });
    let runId: string | undefined;
    let deps: PipelineDeps;
    try {
      deps = await this.depsFor(folder, ticketPath, (e) => {
        if (!runId) {
          runId = e.runId;
          this.active.set(runId, controller);
        }
        let known = this.runs.get(e.runId);
        const isNew = !known;
        if (!known || e.seq === 0) {
          known = { folder, state: emptyRunState(e.runId) };
          this.runs.set(e.runId, known);
        }
        // A resumed run's RunLog starts after the events already reduced here.
        if (e.seq >= known.state.eventCount) applyEvent(known.state, e);
        this._onDidChangeRun.fire(isNew ? undefined : e.runId);
        if (e.type === 'run.finished') this.log.info(`run ${e.runId}: ${e.outcome}`);
        onEvent?.(e);
      });
    } catch (err) {
      signal.removeEventListener('abort', abort);
      lock.release();
      throw err;
    }
    try {
      return await body({ ...deps, workspaceRoot: deps.workspaceRoot });
    } finally {
      signal.removeEventListener('abort', abort);
      if (runId) this.active.delete(runId);
      // The language services, the lint worker, the private temp folder, and any process of the run left alive.
      const { disposeDeps } = await import('../node/wire.js');
      await disposeDeps(deps).catch((err: unknown) => this.log.warn(`releasing the run's tools: ${String(err)}`));
      lock.release();
    }
  }

  /** Registers an abort for a run this window drives, so deactivate() can stop it. */
  abortAll(): void {
    for (const c of this.active.values()) c.abort();
  }

  /** Resolves once every run this window drives has recorded its end. */
  async idle(timeoutMs: number): Promise<void> {
    const until = Date.now() + timeoutMs;
    while (this.active.size && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
  }

  async delete(runId: string): Promise<void> {
    const known = this.runs.get(runId);
    if (!known) return;
    await this.store(known.folder).deleteRun(runId);
    this.runs.delete(runId);
    this._onDidChangeRun.fire(undefined);
  }

  dispose(): void {
    this.abortAll();
    for (const t of this.pendingReload.values()) clearTimeout(t);
    for (const d of this.disposables) d.dispose();
  }
}
