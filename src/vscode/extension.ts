import * as vscode from 'vscode';
import { endIdleWorkers } from '../node/diagnostics/idleWorkers';
import type { CommandContext } from './commands/commandContext';
import { CorrectionService } from './commands/correctionService';
import { registerCorrectionCommands } from './commands/corrections';
import { registerPlanCommands } from './commands/runPlan';
import { registerRunCommands } from './commands/runTicket';
import { registerRunsListCommands } from './commands/runsList';
import { registerScriptCommands } from './commands/scripts';
import { depsForFolder, draftModelFor } from './deps';
import { ModelSetup } from './modelSetup';
import { Disposable } from './dispose';
import { onDidShowMessage, type ShownMessage } from './messages';
import { RunPanels } from './runPanel';
import { RunService } from './runService';
import { StatsPanel } from './statsPanel';
import { EvaluateRouting } from './evaluateRouting';
import { PlansTreeProvider } from './plansTree';
import { RunsTreeProvider } from './runsTree';
import { registerTicketCommands, TicketFiles } from './ticketFiles';
import { registerDraftPlanCommand } from './planDraft';
import { registerDraftCommand } from './ticketDraft';
import { TestCodeLens } from './testCodeLens';
import { registerMakeTestPassCommand } from './testTicket';
import { TicketLanguageClient } from './ticketLanguageClient';
import { VIEW_PLANS, VIEW_RUNS } from './settings';
import { SaveLog } from './userSaves';

/** What activate() returns: the integration tests reach the live objects through it. */
export interface TicketRunnerApi {
  runs: RunService;
  tree: RunsTreeProvider;
  panels: RunPanels;
  log: vscode.LogOutputChannel;
  /** Every notification shown (messages.ts): the tests' window on what the user was told. */
  onDidShowMessage: vscode.Event<ShownMessage>;
}

/**
 * How long deactivate() waits for the runs it cancels to record their end. The extension
 * host gives deactivation 5 s before it exits; the rest is margin.
 */
export const DEACTIVATE_WAIT_MS = 3_500;

/**
 * The extension's one root owner, wired by hand in one place: everything it creates is
 * registered with it and disposed once, with it. Activation is cheap: the run store and the
 * tree; the pipeline and its heavy adapters load on the first run (deps.ts).
 */
class TicketRunner extends Disposable implements TicketRunnerApi {
  readonly log: vscode.LogOutputChannel;
  readonly runs: RunService;
  readonly panels: RunPanels;
  readonly tree: RunsTreeProvider;
  readonly models: ModelSetup;
  readonly onDidShowMessage = onDidShowMessage;

  constructor(context: vscode.ExtensionContext) {
    super();
    const log = (this.log = this._register(vscode.window.createOutputChannel('Ticket Runner', { log: true })));
    // The user's saves, from activation on: they tell a save from a test's write when the sandbox is off.
    const saves = this._register(new SaveLog());
    this.runs = this._register(
      new RunService(log, (folder, ticketPath, onEvent, needs, settings) =>
        depsForFolder(folder, ticketPath, onEvent, context.secrets, log, saves, needs, settings),
      ),
    );
    const models = (this.models = this._register(new ModelSetup(context, log)));
    for (const command of models.register()) this._register(command);
    const corrections = new CorrectionService(this.runs);
    this.panels = this._register(
      new RunPanels(
        context.extensionUri,
        this.runs,
        async (runId, decision, reason) => void (await corrections.decide(runId, decision, reason, 'webview')),
        log,
      ),
    );
    this.tree = this._register(new RunsTreeProvider(this.runs));
    this._register(vscode.window.createTreeView(VIEW_RUNS, { treeDataProvider: this.tree, showCollapseAll: true }));
    const plans = this._register(new PlansTreeProvider(this.runs));
    this._register(vscode.window.createTreeView(VIEW_PLANS, { treeDataProvider: plans }));
    const ctx: CommandContext = { runs: this.runs, panels: this.panels, models, corrections, log };
    for (const command of [
      ...registerRunCommands(ctx),
      ...registerPlanCommands(ctx, plans),
      ...registerRunsListCommands(ctx),
      ...registerScriptCommands(ctx),
      ...registerCorrectionCommands(ctx),
    ])
      this._register(command);
    this._register(new StatsPanel(context.extensionUri, this.runs, log));
    const ticketServer = this._register(new TicketLanguageClient(context.extensionUri, log));
    const tickets = this._register(
      new TicketFiles(ticketServer, (folder, ticketPath) => draftModelFor(folder, ticketPath, context.secrets)),
    );
    for (const command of registerTicketCommands(tickets)) this._register(command);
    const draftReady = (folder: vscode.WorkspaceFolder) => models.ensure(folder, 'draft').then((way) => way === 'setting');
    this._register(registerDraftCommand(tickets, draftReady, log));
    this._register(registerDraftPlanCommand(tickets, draftReady, log));
    this._register(registerMakeTestPassCommand(tickets, log));
    this._register(new TestCodeLens());
    this._register(new EvaluateRouting().register());
    // The palette offers a run's commands only when there is a run to act on.
    const updateContext = () => {
      const runs = this.runs.list();
      void vscode.commands.executeCommand('setContext', 'ticketRunner.hasRuns', runs.length > 0);
      void vscode.commands.executeCommand(
        'setContext',
        'ticketRunner.hasPendingCorrections',
        runs.some((r) => r.state.corrections.some((c) => c.status === 'pending')),
      );
    };
    this._register(this.runs.onDidChangeRun(updateContext));
    updateContext();
    this._register(
      vscode.workspace.onDidGrantWorkspaceTrust(() => {
        log.info('workspace trusted: runs can start');
        void this.runs.refresh();
      }),
    );
  }
}

let root: TicketRunner | undefined;

/**
 * The root is disposed by deactivate(), not through context.subscriptions: the host disposes
 * those as soon as deactivate() is called, and the runs it cancels still write to the views
 * and the log until they have recorded their end.
 */
export function activate(context: vscode.ExtensionContext): TicketRunnerApi {
  root = new TicketRunner(context);
  if (!vscode.workspace.isTrusted)
    root.log.info('untrusted workspace: past runs are viewable; no run starts until the workspace is trusted');
  void root.runs.refresh();
  void root.models.offerWalkthrough();
  root.log.info(`activated (${vscode.workspace.workspaceFolders?.length ?? 0} folder(s), trusted: ${vscode.workspace.isTrusted})`);
  return root;
}

/**
 * Cancels every run this window drives (a reload, a closed window, an update) and waits,
 * within the extension host's deactivate window, until each log ends with run.finished
 * cancelled. A run that is not done by then is left as its log says: interrupted, resumable.
 */
export async function deactivate(): Promise<void> {
  if (!root) return;
  const owner = root;
  root = undefined;
  const ended = await owner.runs.stopAll(DEACTIVATE_WAIT_MS);
  owner.log.info(
    ended
      ? 'deactivated: every run this window drove recorded its end'
      : `deactivated: a run did not record its end within ${DEACTIVATE_WAIT_MS} ms`,
  );
  owner.dispose();
  // The language workers kept for the next run end with the window, not three minutes later.
  await endIdleWorkers();
}
