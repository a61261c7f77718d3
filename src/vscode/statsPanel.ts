import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import { StatsWebviewMessage } from '../shared/statsProtocol';
import { Disposable, DisposableMap } from './dispose';
import type { RunService } from './runService';
import { Command } from './settings';
import { statsMessage } from './statsFigures';
import { makeNonce, webviewHtml } from './webviewHtml';

export const STATS_WEBVIEW_TYPE = 'ticketRunner.stats';

/**
 * The Run Statistics panel (one per window): the workspace's runs in figures, counted again
 * whenever a run changes, and on the panel's own Count again. It owns its command.
 */
export class StatsPanel extends Disposable {
  private readonly open = this._register(new DisposableMap<'panel', OpenStats>());

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly runs: RunService,
    private readonly log: vscode.LogOutputChannel,
  ) {
    super();
    this._register(vscode.commands.registerCommand(Command.showStats, () => this.show()));
  }

  show(): vscode.WebviewPanel {
    const existing = this.open.get('panel');
    if (existing) {
      existing.panel.reveal();
      return existing.panel;
    }
    const panel = vscode.window.createWebviewPanel(STATS_WEBVIEW_TYPE, 'Run Statistics', vscode.ViewColumn.Active, { enableScripts: true });
    const open = new OpenStats(panel, this.extensionUri, this.runs, this.log);
    this.open.set('panel', open);
    // Closed by the user: it disposed itself.
    open.onDidDispose(() => this.open.get('panel') === open && this.open.deleteAndLeak('panel'));
    return panel;
  }
}

class OpenStats extends Disposable {
  private ready = false;
  private readonly _onDidDispose = this._register(new vscode.EventEmitter<void>());
  readonly onDidDispose = this._onDidDispose.event;

  constructor(
    readonly panel: vscode.WebviewPanel,
    extensionUri: vscode.Uri,
    private readonly runs: RunService,
    private readonly log: vscode.LogOutputChannel,
  ) {
    super();
    this._register(panel);
    const webview = panel.webview;
    webview.options = { enableScripts: true, localResourceRoots: [vscode.Uri.joinPath(extensionUri, 'dist')] };
    const dist = (f: string) => webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'dist', f)).toString();
    webview.html = webviewHtml({
      cspSource: webview.cspSource,
      nonce: makeNonce((n) => randomBytes(n)),
      scriptUri: dist('statsView.js'),
      styleUri: dist('webview.css'),
      codiconUri: dist('codicons/codicon.css'),
      title: 'Run Statistics',
      loading: 'Counting the runs…',
    });
    this._register(webview.onDidReceiveMessage((raw: unknown) => this.receive(raw)));
    this._register(runs.onDidChangeRun(() => this.post()));
    this._register(panel.onDidDispose(() => this.dispose()));
  }

  private receive(raw: unknown): void {
    const parsed = StatsWebviewMessage.safeParse(raw);
    if (!parsed.success) return void this.log.warn(`Run Statistics refused a message: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
    this.ready = true;
    if (parsed.data.type === 'stats/refresh') void this.runs.refresh();
    else this.post();
  }

  private post(): void {
    if (!this.ready) return;
    void this.panel.webview.postMessage(statsMessage(this.runs.list().map((r) => r.state)));
  }

  override dispose(): void {
    if (this.isDisposed) return;
    this._onDidDispose.fire();
    super.dispose();
  }
}
