import * as vscode from 'vscode';
import { decide, registerCommands, type CommandContext } from './commands';
import { depsForFolder } from './deps';
import { onDidShowMessage, type ShownMessage } from './messages';
import { RunPanels } from './runPanel';
import { RunService } from './runService';
import { RunsTreeProvider } from './runsTree';
import { VIEW_RUNS } from './settings';

/** What activate() returns: the integration tests reach the live objects through it. */
export interface TicketRunnerApi {
  runs: RunService;
  tree: RunsTreeProvider;
  panels: RunPanels;
  log: vscode.LogOutputChannel;
  /** Every notification shown (messages.ts): the tests' window on what the user was told. */
  onDidShowMessage: vscode.Event<ShownMessage>;
}

let running: RunService | undefined;
let logChannel: vscode.LogOutputChannel | undefined;

/**
 * Wiring by hand, in one place. Activation is cheap: the run store and the tree; the
 * pipeline and its heavy adapters load on the first run (deps.ts).
 */
export function activate(context: vscode.ExtensionContext): TicketRunnerApi {
  const log = vscode.window.createOutputChannel('Ticket Runner', { log: true });
  logChannel = log;
  context.subscriptions.push(log);
  const runs = new RunService(log, (folder, ticketPath, onEvent) => depsForFolder(folder, ticketPath, onEvent, context.secrets, log));
  running = runs;
  context.subscriptions.push(runs);
  const ctx = {} as CommandContext;
  const panels = new RunPanels(context.extensionUri, runs, async (runId, decision, reason) => void (await decide(ctx, runId, decision, reason, 'webview')), log);
  Object.assign(ctx, { runs, panels, secrets: context.secrets, log } satisfies CommandContext);
  const tree = new RunsTreeProvider(runs);
  const view = vscode.window.createTreeView(VIEW_RUNS, { treeDataProvider: tree, showCollapseAll: true });
  context.subscriptions.push(panels, tree, view, ...registerCommands(ctx));
  context.subscriptions.push(
    vscode.workspace.onDidGrantWorkspaceTrust(() => {
      log.info('workspace trusted: runs can start');
      void runs.refresh();
    }),
  );
  if (!vscode.workspace.isTrusted) log.info('untrusted workspace: past runs are viewable; no run starts until the workspace is trusted');
  void runs.refresh();
  log.info(`activated (${vscode.workspace.workspaceFolders?.length ?? 0} folder(s), trusted: ${vscode.workspace.isTrusted})`);
  return { runs, tree, panels, log, onDidShowMessage };
}

/** Aborts running work and waits (briefly) until each run has recorded its end. */
export async function deactivate(): Promise<void> {
  if (!running) return;
  running.abortAll();
  await running.idle(5_000);
  logChannel?.info('deactivated');
}
