import { readdirSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { errorMessage } from '../core/errors';
import { isPlanFileName } from '../core/plan/planFiles';
import { brokenPlanNode, planNode, type PlanNode, type ReadPlan } from '../core/plan/planTree';
import { loadPlan } from '../node/plans/loadPlan';
import { ownerProbe } from '../node/store/workspaceLock';
import { Disposable, DisposableMap, DisposableStore, toDisposable } from './dispose';
import type { RunService } from './runService';
import { treeItemOf } from './treeItems';
import { Command, HAS_PLANS_CONTEXT } from './settings';

/** A row of the plans view: its node, and the workspace folder whose plan it is. */
export interface PlanRow {
  node: PlanNode;
  folder: vscode.WorkspaceFolder;
}

/** A plan file as last read: the plan and its tickets, or why it cannot run. */
type ReadFile = ReadPlan | { file: string; problem: string };

/** The plan files of a folder's `.tickets/`, sorted by name; none when it has no such folder. */
function planFiles(folder: vscode.WorkspaceFolder): string[] {
  try {
    return readdirSync(path.join(folder.uri.fsPath, '.tickets'))
      .filter(isPlanFileName)
      .sort()
      .map((name) => `.tickets/${name}`);
  } catch {
    return [];
  }
}

function readFile(folder: vscode.WorkspaceFolder, file: string): ReadFile {
  try {
    return loadPlan(folder.uri.fsPath, file);
  } catch (err) {
    return { file, problem: errorMessage(err) };
  }
}

/**
 * The plans view: each plan file of the workspace's `.tickets/`, its tickets under it in the order
 * they run. The files are read again when one of them or a ticket changes; the tickets' states
 * are derived again from the run service on every change of a run, as the runs view does.
 */
export class PlansTreeProvider extends Disposable implements vscode.TreeDataProvider<PlanRow> {
  private readonly _onDidChangeTreeData = this._register(new vscode.EventEmitter<PlanRow | undefined>());
  readonly onDidChangeTreeData = this._onDidChangeTreeData.event;
  /** Each folder's plan files as last read, by folder URI. */
  private readonly read = new Map<string, ReadFile[]>();
  private readonly watchers = this._register(new DisposableMap<string, DisposableStore>());
  private pending: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly runs: RunService) {
    super();
    this._register(runs.onDidChangeRun(() => this._onDidChangeTreeData.fire(undefined)));
    for (const folder of vscode.workspace.workspaceFolders ?? []) this.watch(folder);
    this._register(
      vscode.workspace.onDidChangeWorkspaceFolders((e) => {
        for (const f of e.removed) {
          this.watchers.deleteAndDispose(f.uri.toString());
          this.read.delete(f.uri.toString());
        }
        for (const f of e.added) this.watch(f);
        this.reload();
      }),
    );
    this._register(toDisposable(() => clearTimeout(this.pending)));
    this.reload();
  }

  /** A plan's row changes with its file and with its tickets' files (their titles, whether they exist). */
  private watch(folder: vscode.WorkspaceFolder): void {
    const owned = new DisposableStore();
    const watcher = owned.add(
      vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(folder, '.tickets/*.{plan,ticket}.{json,yaml,yml}')),
    );
    const later = () => {
      clearTimeout(this.pending);
      // A save writes a file in bursts (and an editor's safe write is a delete and a create): read once.
      this.pending = setTimeout(() => this.reload(), 150);
    };
    owned.add(watcher.onDidCreate(later));
    owned.add(watcher.onDidChange(later));
    owned.add(watcher.onDidDelete(later));
    this.watchers.set(folder.uri.toString(), owned);
  }

  /** Reads every folder's plan files again. */
  reload(): void {
    this.read.clear();
    for (const folder of vscode.workspace.workspaceFolders ?? [])
      this.read.set(
        folder.uri.toString(),
        planFiles(folder).map((file) => readFile(folder, file)),
      );
    // Hidden, not empty, in a workspace with no plan: most never have one, and a view that only
    // says so would take a share of the sidebar from the runs view. It shows as a plan is written
    // (Draft Plan from Task List, or by hand), as VS Code's own views of optional things do.
    const any = [...this.read.values()].some((files) => files.length > 0);
    void vscode.commands.executeCommand('setContext', HAS_PLANS_CONTEXT, any);
    this._onDidChangeTreeData.fire(undefined);
  }

  /** The plan of `file` in `folder`, as last read; undefined when it is not a plan file of the view. */
  plan(folder: vscode.WorkspaceFolder, file: string): ReadFile | undefined {
    return this.read.get(folder.uri.toString())?.find((r) => r.file === file);
  }

  getChildren(element?: PlanRow): PlanRow[] {
    if (element) return element.node.children.map((node) => ({ node, folder: element.folder }));
    return (vscode.workspace.workspaceFolders ?? []).flatMap((folder) => {
      const files = this.read.get(folder.uri.toString()) ?? [];
      if (!files.length) return [];
      const runs = this.runs
        .list()
        .filter((r) => r.folder.uri.toString() === folder.uri.toString())
        .map((r) => r.state);
      const alive = ownerProbe(folder.uri.fsPath);
      return files.map((f) => ({
        node: 'problem' in f ? brokenPlanNode(f.file, f.problem) : planNode(f, runs, alive),
        folder,
      }));
    });
  }

  getTreeItem({ node, folder }: PlanRow): vscode.TreeItem {
    const item = treeItemOf(node, node.children.length ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.None);
    // Two folders may each have a plan file of one name.
    item.id = `${folder.uri.toString()}#${node.id}`;
    // A click shows what the row points at and leaves the keyboard in the tree, as the runs view's does.
    if (node.opens && 'runId' in node.opens) {
      item.command = { command: Command.openRun, title: 'Open Run', arguments: [node.opens.runId, { preserveFocus: true }] };
    } else if (node.opens) {
      const options: vscode.TextDocumentShowOptions = { preserveFocus: true, preview: true };
      item.command = { command: 'vscode.open', title: 'Open File', arguments: [vscode.Uri.joinPath(folder.uri, node.opens.file), options] };
    }
    return item;
  }
}
