import * as vscode from 'vscode';
import { Disposable, toDisposable } from './dispose';
import type { RunService } from './runService';
import { treeItemOf } from './treeItems';
import { runNode, type RunNode } from '../core/run/views/runTree';

/** The run inspector: runs → attempts → checks, diagnoses, routes; gates; corrections. */
export class RunsTreeProvider extends Disposable implements vscode.TreeDataProvider<RunNode> {
  private readonly _onDidChangeTreeData = this._register(new vscode.EventEmitter<RunNode | undefined>());
  readonly onDidChangeTreeData = this._onDidChangeTreeData.event;
  private roots = new Map<string, RunNode>();

  constructor(private readonly runs: RunService) {
    super();
    // The tree re-derives from RunState on every change: cheap, and never out of step with the log.
    this._register(runs.onDidChangeRun(() => this._onDidChangeTreeData.fire(undefined)));
    // A row says "2 min ago": redrawn each minute while some run is young enough to say it so.
    const ticking = setInterval(() => {
      const hourAgo = Date.now() - 61 * 60_000;
      if (this.runs.list().some((r) => Date.parse(r.state.startedAt ?? '') > hourAgo)) this._onDidChangeTreeData.fire(undefined);
    }, 60_000);
    this._register(toDisposable(() => clearInterval(ticking)));
  }

  getChildren(element?: RunNode): RunNode[] {
    if (element) return element.children;
    this.roots = new Map(this.runs.list().map((r) => [r.state.runId, runNode(r.state, new Date(), this.runs.statusOf(r.state.runId))]));
    return [...this.roots.values()];
  }

  getParent(element: RunNode): RunNode | undefined {
    if (element.id.startsWith('run:') && !element.id.includes('/')) return undefined;
    const root = this.roots.get(element.runId);
    const find = (n: RunNode): RunNode | undefined => {
      for (const c of n.children) {
        if (c.id === element.id) return n;
        const deeper = find(c);
        if (deeper) return deeper;
      }
      return undefined;
    };
    return root ? find(root) : undefined;
  }

  /** The root node of a run, as last rendered (tests and reveal use it). */
  rootOf(runId: string): RunNode | undefined {
    return this.roots.get(runId);
  }

  getTreeItem(n: RunNode): vscode.TreeItem {
    const item = treeItemOf(n, n.children.length ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None);
    const known = this.runs.get(n.runId);
    // A click shows what the row points at and leaves the keyboard in the tree, as the Explorer's does.
    if (n.contextValue.startsWith('run')) {
      item.command = { command: 'ticketRunner.openRun', title: 'Open Run', arguments: [n, { preserveFocus: true }] };
    } else if (n.file && known) {
      const uri = vscode.Uri.joinPath(known.folder.uri, n.file.path);
      const line = Math.max(0, (n.file.line ?? 1) - 1);
      const options: vscode.TextDocumentShowOptions = { selection: new vscode.Range(line, 0, line, 0), preserveFocus: true, preview: true };
      item.command = { command: 'vscode.open', title: 'Open File', arguments: [uri, options] };
    }
    return item;
  }
}
