import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import { editorErrorMessage, errorMessage } from '../core/errors';
import { reduceRun } from '../core/run/reducer';
import type { RunEvent } from '../core/schema/events';
import { isInside } from '../node/workspacePaths';
import { parseWebviewMessage, type HandlerMap, type HostMessage, type WebviewMessage } from '../shared/protocol';
import type { RunService } from './runService';
import { attemptBlobHashes, quoteLocations, timelineOf } from '../core/run/views/timeline';
import { runTitle } from '../core/run/views/runTree';
import { runStage } from '../core/run/views/stage';
import { proposalTestsOf } from '../core/stages/router/proposalTests';
import { ProposalDocuments } from './proposalDocuments';
import { Disposable, DisposableMap, toDisposable } from './dispose';
import { WEBVIEW_TYPE } from './settings';
import { makeNonce, webviewHtml } from './webviewHtml';
import { ModelCallDocuments } from './modelCallDocuments';

export type Decide = (runId: string, decision: 'accept' | 'reject', reason: string | undefined) => Promise<void>;

/** What the webview remembers across hide/show and reloads (vscode.setState), read back here on restore. */
interface PersistedState {
  runId?: string;
  mode?: 'live' | 'replay';
}

const MAX_BLOB = 200_000;

/** The file a view asks to open, when it is inside the run's folder (a sibling such as `../ws-other` is not). */
export function fileInFolder(folder: vscode.Uri, rel: string): vscode.Uri | undefined {
  const uri = vscode.Uri.joinPath(folder, rel);
  return isInside(folder.fsPath, uri.fsPath) ? uri : undefined;
}

/** The run view's page in a panel; it posts `ready` once it listens. */
function loadRunPage(panel: vscode.WebviewPanel, extensionUri: vscode.Uri, title: string, loading?: string): void {
  const webview = panel.webview;
  webview.options = { enableScripts: true, localResourceRoots: [vscode.Uri.joinPath(extensionUri, 'dist')] };
  const dist = (f: string) => webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'dist', f)).toString();
  webview.html = webviewHtml({
    cspSource: webview.cspSource,
    nonce: makeNonce((n) => randomBytes(n)),
    scriptUri: dist('webview.js'),
    styleUri: dist('webview.css'),
    codiconUri: dist('codicons/codicon.css'),
    title,
    ...(loading ? { loading } : {}),
  });
}

/**
 * A run's panel opened as the run is asked for, before the run has an id: its page loads while
 * the run starts (the page's load is most of the wait for the first event), and `bind` hands it
 * to the run once it has started. A run that never starts closes it.
 */
export interface PreparedPanel {
  bind(runId: string): void;
  /** Names the panel once the ticket is known (it may open before the ticket is picked). */
  retitle(title: string): void;
  /**
   * Resolves once the bound run's first state went to its page, or the panel closed, or after
   * `limitMs`: what a run waits for before its heavy work (see RunOptions.shown).
   */
  shown(limitMs: number): Promise<void>;
  /** Closes the panel unless it was bound to a run. */
  release(): void;
}

/**
 * One webview panel showing one run, live or as a replay of its log. It owns the panel: the
 * user's close and the window's disposal end in the same dispose(), once.
 */
class RunPanel extends Disposable {
  private ready = false;
  private markShown!: () => void;
  /** Resolves when the first state went to the page, or the panel was closed before it did. */
  readonly shown = new Promise<void>((resolve) => (this.markShown = resolve));
  private seq: number | undefined;
  private postTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly _onDidDispose = this._register(new vscode.EventEmitter<void>());
  readonly onDidDispose = this._onDidDispose.event;

  constructor(
    readonly panel: vscode.WebviewPanel,
    readonly runId: string,
    private mode: 'live' | 'replay',
    private readonly host: RunPanels,
    /** A panel prepared before its run started: its page is loaded already, and may have said ready. */
    prepared?: { ready: boolean },
  ) {
    super();
    this._register(panel);
    this._register(toDisposable(() => clearTimeout(this.postTimer)));
    if (!prepared) loadRunPage(panel, host.extensionUri, panel.title);
    this._register(panel.webview.onDidReceiveMessage((raw: unknown) => void this.receive(raw)));
    this._register(
      host.runs.onDidChangeRun((id) => (id === undefined || id === this.runId) && this.mode === 'live' && this.schedulePost()),
    );
    this._register(panel.onDidDispose(() => this.dispose()));
    if (prepared?.ready) this.handlers.ready();
  }

  reveal(mode: 'live' | 'replay', preserveFocus = false): void {
    this.mode = mode;
    this.seq = undefined;
    this.panel.reveal(undefined, preserveFocus);
    if (this.ready) this.schedulePost();
  }

  private schedulePost(): void {
    if (!this.ready) return; // The ready handshake: nothing goes out before the webview listens.
    clearTimeout(this.postTimer);
    this.postTimer = setTimeout(() => void this.postState(), 60);
  }

  private post(message: HostMessage): void {
    void this.panel.webview.postMessage(message);
  }

  private readonly handlers = {
    ready: () => {
      this.ready = true;
      void this.postState();
    },
    'correction/accept': async (m) => this.decide(m.id, m.runId, 'accept', undefined),
    'correction/reject': async (m) => this.decide(m.id, m.runId, 'reject', m.reason),
    'proposal/diff': async (m) => {
      try {
        if (m.runId !== this.runId) throw new Error(`this view shows run ${this.runId}, not ${m.runId}`);
        await this.host.proposals.show(m.runId, m.requestId, m.test);
        this.post({ type: 'request/done', id: m.id, ok: true });
      } catch (err) {
        this.post({ type: 'request/done', id: m.id, ok: false, error: editorErrorMessage(err) });
      }
    },
    'run/cancel': (m) => {
      if (m.runId !== this.runId)
        return this.post({ type: 'request/done', id: m.id, ok: false, error: `this view shows run ${this.runId}, not ${m.runId}` });
      const ok = this.host.runs.cancel(m.runId);
      this.post({ type: 'request/done', id: m.id, ok, ...(ok ? {} : { error: 'this run is not going in this window any more' }) });
    },
    'file/open': async (m) => {
      const known = this.host.runs.get(this.runId);
      if (!known) return;
      const uri = fileInFolder(known.folder.uri, m.path);
      if (!uri) {
        this.host.log.warn(`run ${this.runId}: refused to open ${m.path}: it is outside the workspace folder`);
        return;
      }
      const line = Math.max(0, (m.line ?? 1) - 1);
      try {
        await vscode.window.showTextDocument(uri, { selection: new vscode.Range(line, 0, line, 0), viewColumn: vscode.ViewColumn.One });
      } catch (err) {
        this.post({ type: 'run/error', message: `cannot open ${m.path}: ${errorMessage(err)}` });
      }
    },
    'model/show': async (m) => {
      try {
        await this.host.calls.show(this.runId, m.call);
      } catch (err) {
        this.post({ type: 'run/error', message: `Cannot open model call #${m.call + 1}: ${errorMessage(err)}` });
      }
    },
    'run/seek': (m) => {
      this.mode = 'replay';
      this.seq = m.seq;
      void this.postState();
    },
    'protocol/error': (m) => this.host.log.warn(`webview of run ${this.runId} refused a message: ${m.message}`),
  } satisfies HandlerMap<WebviewMessage>;

  private async receive(raw: unknown): Promise<void> {
    const parsed = parseWebviewMessage(raw);
    if (!parsed.ok) {
      this.host.log.warn(`run ${this.runId}: refused a message from the webview: ${parsed.error}`);
      this.post({ type: 'run/error', message: `The extension refused a message from this view: ${parsed.error}` });
      return;
    }
    const m = parsed.message;
    await (this.handlers[m.type] as (x: WebviewMessage) => void | Promise<void>)(m);
  }

  private async decide(id: string, runId: string, decision: 'accept' | 'reject', reason: string | undefined): Promise<void> {
    try {
      if (runId !== this.runId) throw new Error(`this view shows run ${this.runId}, not ${runId}`);
      await this.host.decide(runId, decision, reason);
      this.post({ type: 'request/done', id, ok: true });
    } catch (err) {
      this.post({ type: 'request/done', id, ok: false, error: editorErrorMessage(err) });
    }
    void this.postState();
  }

  private async postState(): Promise<void> {
    const known = this.host.runs.get(this.runId);
    if (!known) {
      this.post({ type: 'run/error', message: 'This run is not in this workspace any more (deleted?).' });
      return;
    }
    const store = this.host.runs.store(known.folder);
    let events: RunEvent[];
    try {
      events = (await store.load(this.runId)).events;
    } catch (err) {
      this.post({ type: 'run/error', message: `Cannot load the log of this run: ${errorMessage(err)}` });
      return;
    }
    const total = events.length;
    const upTo = this.mode === 'replay' ? Math.min(this.seq ?? 0, total - 1) : total - 1;
    const shown = events.filter((e) => e.seq <= upTo);
    const state = reduceRun(this.runId, shown);
    this.panel.title = runTitle(
      state,
      new Date(),
      this.mode === 'live' ? (this.host.runs.statusOf(this.runId) ?? state.status) : state.status,
      this.mode,
    );
    const blobs: Record<string, string> = {};
    const blob = async (hash: string) => {
      try {
        return await store.getBlob(this.runId, hash);
      } catch {
        return null;
      }
    };
    for (const h of attemptBlobHashes(state)) {
      const text = await blob(h);
      if (text !== null && text.length <= MAX_BLOB) blobs[h] = text;
    }
    const readWorkspace = async (p: string) => {
      try {
        return Buffer.from(await vscode.workspace.fs.readFile(vscode.Uri.joinPath(known.folder.uri, p))).toString('utf8');
      } catch {
        return null;
      }
    };
    this.post({
      type: 'run/state',
      state,
      timeline: timelineOf(shown),
      blobs,
      quotes: await quoteLocations(state, blob, readWorkspace),
      mode: this.mode,
      position: { seq: Math.max(upTo, 0), total },
      canDecide: vscode.workspace.isTrusted && !this.host.runs.isActive(this.runId),
      proposalTests: proposalTestsOf(state),
      ...(this.mode === 'live' ? { stage: runStage(state, shown), canCancel: this.host.runs.isActive(this.runId) } : {}),
    });
    this.markShown();
  }

  override dispose(): void {
    if (this.isDisposed) return;
    this.markShown();
    // Said before the emitter goes with the rest: the host forgets this panel.
    this._onDidDispose.fire();
    super.dispose();
  }
}

/** The run panels of the window: one per run, restored after a reload by the serializer. */
export class RunPanels extends Disposable implements vscode.WebviewPanelSerializer<PersistedState> {
  private readonly panels = this._register(new DisposableMap<string, RunPanel>());
  /** The model calls' records, opened from a panel's timeline. */
  readonly calls: ModelCallDocuments;
  /** The proposals' two sides, opened in the diff editor from a correction. */
  readonly proposals: ProposalDocuments;

  constructor(
    readonly extensionUri: vscode.Uri,
    readonly runs: RunService,
    readonly decide: Decide,
    readonly log: vscode.LogOutputChannel,
  ) {
    super();
    this.calls = this._register(new ModelCallDocuments(runs));
    this.proposals = this._register(new ProposalDocuments(runs));
    this._register(vscode.window.registerWebviewPanelSerializer(WEBVIEW_TYPE, this));
  }

  /**
   * Opens or reveals a run's page. `preserveFocus`: a click on a row of the runs tree, which keeps
   * the keyboard in the tree, so the arrow keys go on moving through the runs.
   */
  open(runId: string, mode: 'live' | 'replay' = 'live', preserveFocus = false): void {
    const existing = this.panels.get(runId);
    if (existing) {
      existing.reveal(mode, preserveFocus);
      return;
    }
    const known = this.runs.get(runId);
    const title = known ? runTitle(known.state, new Date(), this.runs.statusOf(runId), mode) : 'Ticket Runner';
    this.track(new RunPanel(this.newPanel(title, preserveFocus), runId, mode, this));
  }

  /** A panel for a run that is about to start (see PreparedPanel). */
  prepare(title: string): PreparedPanel {
    const panel = this.newPanel(title);
    loadRunPage(panel, this.extensionUri, title, 'The run shows here as it starts.');
    const early = { ready: false };
    // Only `ready` matters before the run exists: the page shows nothing it could act on.
    const listening = panel.webview.onDidReceiveMessage((raw: unknown) => {
      if ((raw as { type?: unknown } | null)?.type === 'ready') early.ready = true;
    });
    let state: 'open' | 'bound' | 'closed' = 'open';
    let bound: RunPanel | undefined;
    const closed = panel.onDidDispose(() => {
      state = 'closed';
      listening.dispose();
      closed.dispose();
    });
    return {
      bind: (runId) => {
        if (state !== 'open') return;
        state = 'bound';
        listening.dispose();
        closed.dispose();
        if (this.panels.get(runId)) return void panel.dispose();
        bound = new RunPanel(panel, runId, 'live', this, early);
        this.track(bound);
      },
      shown: async (limitMs) => {
        let timer: ReturnType<typeof setTimeout> | undefined;
        try {
          if (bound) await Promise.race([bound.shown, new Promise<void>((resolve) => (timer = setTimeout(resolve, limitMs)))]);
        } finally {
          clearTimeout(timer);
        }
      },
      release: () => {
        if (state === 'open') panel.dispose();
      },
      retitle: (title) => {
        if (state === 'open') panel.title = title;
      },
    };
  }

  /** A run view's panel in the active group, with the product's icon. */
  private newPanel(title: string, preserveFocus = false): vscode.WebviewPanel {
    const panel = vscode.window.createWebviewPanel(
      WEBVIEW_TYPE,
      title,
      { viewColumn: vscode.ViewColumn.Active, preserveFocus },
      { enableScripts: true },
    );
    panel.iconPath = vscode.Uri.joinPath(this.extensionUri, 'media', 'ticketRunner.svg');
    return panel;
  }

  private track(p: RunPanel): void {
    this.panels.set(p.runId, p);
    // The listener goes with the panel's emitter; the panel disposed itself, so it is only forgotten.
    p.onDidDispose(() => {
      if (this.panels.get(p.runId) === p) this.panels.deleteAndLeak(p.runId);
    });
  }

  /** After a window reload: the webview's own saved state says which run it showed. */
  async deserializeWebviewPanel(panel: vscode.WebviewPanel, state: PersistedState | undefined): Promise<void> {
    if (!state?.runId) {
      panel.dispose();
      return;
    }
    if (!this.runs.get(state.runId)) await this.runs.refresh();
    this.track(new RunPanel(panel, state.runId, state.mode ?? 'live', this));
  }

  /** The panel of a run, for the tests. */
  panelOf(runId: string): vscode.WebviewPanel | undefined {
    return this.panels.get(runId)?.panel;
  }

  /** For the tests: resolves once the run's page was sent its first state (or the panel closed). */
  shownOf(runId: string): Promise<void> | undefined {
    return this.panels.get(runId)?.shown;
  }
}
