import * as path from 'node:path';
import * as vscode from 'vscode';
import { CancelledError, errorMessage, UserInputError } from '../core/errors';
import type { PipelineDeps } from '../core/stages/common/context';
import { applyEvent, emptyRunState, reduceRun, type RunState } from '../core/run/reducer';
import type { RunEvent } from '../core/schema/events';
import { FileRunStore, RUNS_DIR } from '../node/store/fileRunStore';
import { ownerProbe } from '../node/store/workspaceLock';
import { withRunResources, type WiredDeps } from '../node/runResources';
import { displayStatus, type DisplayStatus } from '../core/run/liveness';
import { Disposable, DisposableMap, DisposableStore, toDisposable } from './dispose';
import { showMessage } from './messages';
import { abortOnCancel } from './cancellation';
import type { ModelProviderSetting } from './settings';
import { folderRunSettings } from './folderSettings';
import type { EditorRunSettings } from './runSettings';

/** A run known to the window: which folder it lives in, and its state reduced from its log. */
export interface KnownRun {
  folder: vscode.WorkspaceFolder;
  state: RunState;
}

/** What a call needs of its model: which run it goes on with, or none at all (a rejection, a rollback). */
export interface ModelNeeds {
  continuesRun?: string;
  noModel?: boolean;
  /** The provider this call uses instead of the model setting: the recorded sample's, or a scripted run's own when it goes on. */
  model?: ModelProviderSetting;
}

export type DepsFactory = (
  folder: vscode.WorkspaceFolder,
  ticketPath: string,
  onEvent: (e: RunEvent) => void,
  needs: ModelNeeds,
  settings: EditorRunSettings,
) => Promise<WiredDeps>;

export interface DriveOptions extends ModelNeeds {
  /** The settings the caller read for this run and gave the core too; absent, the folder's are read now (a rollback takes none). */
  settings?: EditorRunSettings;
  /** The progress notification's Cancel: it aborts the run's controller. */
  cancel?: vscode.CancellationToken;
  onEvent?: (e: RunEvent) => void;
  /** The plan this call is a step of: in a folder a plan holds (holdForPlan), only its own calls run. */
  plan?: string;
}

/**
 * The window's view of every run, in every workspace folder: loaded from the logs on disk,
 * kept live from the logs' file watcher and from the RunLog of the runs this window drives.
 * It observes the runs and owns their cancellation: each run this window drives has one
 * AbortController, here, whose signal is the run's (every stage, model call and child
 * process gets it), so the progress notification's Cancel and deactivate() both stop it.
 * Every view (tree, webview) subscribes to onDidChangeRun.
 */
export class RunService extends Disposable {
  private readonly runs = new Map<string, KnownRun>();
  private readonly stores = new Map<string, FileRunStore>();
  /** The runs this window drives, by id once their log names it. */
  private readonly active = new Set<string>();
  /** Every drive under way, with its controller and a promise of its end: what stopAll aborts and awaits. */
  private readonly live = new Map<AbortController, Promise<void>>();
  /** The controller of each run this window drives, by run id once its first event names it: the webview's Cancel. */
  private readonly controllers = new Map<string, AbortController>();
  private readonly pendingReload = new Map<string, ReturnType<typeof setTimeout>>();
  /** The plan each folder runs now, by folder URI. */
  private readonly plans = new Map<string, string>();
  /** A watcher of the run logs per workspace folder, disposed with the folder's removal. */
  private readonly watchers = this._register(new DisposableMap<string, DisposableStore>());
  private readonly _onDidChangeRun = this._register(new vscode.EventEmitter<string | undefined>());
  /** Fires with a runId when that run changed, or undefined when the list changed. */
  readonly onDidChangeRun = this._onDidChangeRun.event;

  constructor(
    private readonly log: vscode.LogOutputChannel,
    private readonly depsFor: DepsFactory,
  ) {
    super();
    this._register(toDisposable(() => this.pendingReload.forEach((t) => clearTimeout(t))));
    for (const folder of vscode.workspace.workspaceFolders ?? []) this.watch(folder);
    this._register(
      vscode.workspace.onDidChangeWorkspaceFolders((e) => {
        for (const f of e.removed) this.watchers.deleteAndDispose(f.uri.toString());
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
    const owned = new DisposableStore();
    const pattern = new vscode.RelativePattern(folder, `${RUNS_DIR.split(path.sep).join('/')}/**/events.jsonl`);
    const watcher = owned.add(vscode.workspace.createFileSystemWatcher(pattern));
    const onChange = (uri: vscode.Uri) => this.scheduleReload(folder, path.basename(path.dirname(uri.fsPath)));
    owned.add(watcher.onDidCreate(onChange));
    owned.add(watcher.onDidChange(onChange));
    owned.add(
      watcher.onDidDelete((uri) => {
        const runId = path.basename(path.dirname(uri.fsPath));
        if (this.runs.delete(runId)) this._onDidChangeRun.fire(undefined);
      }),
    );
    this.watchers.set(folder.uri.toString(), owned);
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
      const ids = await this.store(folder)
        .listRuns()
        .catch(() => []);
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
   * Keeps `folder` for a plan until the returned disposable is disposed. A plan's tickets take the
   * workspace lock one at a time, so between two of them another run could change the code the
   * next one starts on: while the plan holds the folder, drive refuses every call not of it.
   */
  holdForPlan(folder: vscode.WorkspaceFolder, planId: string): vscode.Disposable {
    const busy = this.planBusy(folder);
    if (busy) throw new UserInputError(busy);
    const key = folder.uri.toString();
    this.plans.set(key, planId);
    return toDisposable(() => {
      if (this.plans.get(key) === planId) this.plans.delete(key);
    });
  }

  /** Why no run starts in `folder` now, when a plan runs there: its words for the user; undefined when none does. */
  planBusy(folder: vscode.WorkspaceFolder, plan?: string): string | undefined {
    const running = this.plans.get(folder.uri.toString());
    if (running === undefined || running === plan) return undefined;
    return `the plan ${running} is running in ${folder.name}; wait for it to end, or cancel it from its notification`;
  }

  /**
   * Drives one pipeline call (start, resume, resolve, rollback) with live updates: the deps'
   * onEvent folds each event into the state as the RunLog writes it. The run's AbortController
   * is made here and its signal handed to `body`, which passes it on as the run's signal; a
   * cancel (the token, stopAll) is recorded by the core as run.finished cancelled.
   */
  async drive<T>(
    folder: vscode.WorkspaceFolder,
    ticketPath: string,
    body: (deps: PipelineDeps, signal: AbortSignal) => Promise<T>,
    o: DriveOptions = {},
  ): Promise<T> {
    if (this.isDisposed) throw new CancelledError('the window is closing: no run starts');
    const busy = this.planBusy(folder, o.plan);
    if (busy) throw new UserInputError(busy);
    const controller = new AbortController();
    const cancel = abortOnCancel(o.cancel, controller);
    const running = this.driveWith(folder, ticketPath, controller, body, o);
    this.live.set(
      controller,
      running.then(
        () => undefined,
        () => undefined,
      ),
    );
    try {
      return await running;
    } finally {
      this.live.delete(controller);
      cancel.dispose();
    }
  }

  private async driveWith<T>(
    folder: vscode.WorkspaceFolder,
    ticketPath: string,
    controller: AbortController,
    body: (deps: PipelineDeps, signal: AbortSignal) => Promise<T>,
    o: DriveOptions,
  ): Promise<T> {
    let runId: string | undefined;
    const onEvent = (e: RunEvent) => {
      if (!runId) {
        runId = e.runId;
        this.active.add(runId);
        this.controllers.set(runId, controller);
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
      o.onEvent?.(e);
    };
    // The same lock, wiring and release as the CLI's: one run per workspace, whichever tool starts it.
    const resources = {
      workspaceRoot: folder.uri.fsPath,
      holder: `the VS Code extension (window pid ${process.pid})`,
      warn: (m: string) => {
        this.log.warn(m);
        void showMessage('warning', `Ticket Runner ${m}.`);
      },
      wire: () =>
        this.depsFor(
          folder,
          ticketPath,
          onEvent,
          { continuesRun: o.continuesRun, noModel: o.noModel, model: o.model },
          o.settings ?? folderRunSettings(folder),
        ),
      // The language services, the lint worker, the private temp folder, and any process of the run left alive.
      onReleaseError: (err: unknown) => this.log.warn(`releasing the run's tools: ${String(err)}`),
    };
    return withRunResources(resources, async (deps) => {
      try {
        // Stopped while its dependencies loaded: nothing started, so there is nothing to record.
        if (controller.signal.aborted) throw new CancelledError('cancelled before the run started');
        return await body(deps, controller.signal);
      } finally {
        if (runId) {
          this.active.delete(runId);
          if (this.controllers.get(runId) === controller) this.controllers.delete(runId);
        }
      }
    });
  }

  /** Aborts one run this window drives (the webview's Cancel); false when this window does not drive it. */
  cancel(runId: string): boolean {
    const c = this.controllers.get(runId);
    if (!c) return false;
    c.abort();
    return true;
  }

  /** Aborts every run this window drives; each records its end as run.finished cancelled. */
  abortAll(): void {
    for (const c of this.live.keys()) c.abort();
  }

  /**
   * Aborts every run this window drives and waits until each has recorded its end, at most
   * `timeoutMs` (deactivate() has a few seconds before the extension host exits). True when all ended.
   */
  async stopAll(timeoutMs: number): Promise<boolean> {
    this.abortAll();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
    try {
      return await Promise.race([Promise.all(this.live.values()).then(() => true), late]);
    } finally {
      clearTimeout(timer);
    }
  }

  async delete(runId: string): Promise<void> {
    const known = this.runs.get(runId);
    if (!known) return;
    await this.store(known.folder).deleteRun(runId);
    this.runs.delete(runId);
    this._onDidChangeRun.fire(undefined);
  }

  override dispose(): void {
    this.abortAll();
    super.dispose();
  }
}
