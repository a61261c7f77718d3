import * as vscode from 'vscode';
import { Disposable } from './dispose';
import { showMessage } from './messages';
import {
  Command,
  DEFAULTS,
  MODEL_READY_CONTEXT,
  readSettings,
  SECRET_ANTHROPIC_KEY,
  SECTION,
  SettingKey,
  WALKTHROUGH_ID,
  type ModelProviderSetting,
} from './settings';
import {
  currentWay,
  missingModel,
  NO_CHAT_MODEL,
  settingTarget,
  wayChoices,
  wayOf,
  waysInQuestion,
  wayStatus,
  type ModelFacts,
  type RunWay,
  type WayIn,
} from './waysIn';

/** Whether a folder of the window holds tickets (`.tickets/`): a project Ticket Runner is used in. */
async function hasTickets(): Promise<boolean> {
  for (const folder of vscode.workspace.workspaceFolders ?? []) {
    const stat = await vscode.workspace.fs.stat(vscode.Uri.joinPath(folder.uri, '.tickets')).then(
      (s) => s,
      () => undefined,
    );
    if (stat && stat.type & vscode.FileType.Directory) return true;
  }
  return false;
}

/** Set once the walkthrough was offered: a window offers it once, not at every start. */
const OFFERED_KEY = 'ticketRunner.walkthroughOffered';
const OPEN_WALKTHROUGH = 'Open Walkthrough';
/** The way this workspace runs tickets once the user chose one (RunWay), in the workspace's state: asked once per workspace. */
const RUN_WAY_KEY = 'ticketRunner.runWay';

/** The Anthropic key: the one kept in SecretStorage, else the one in the editor's environment. */
export async function anthropicKey(secrets: vscode.SecretStorage): Promise<string | undefined> {
  return (await secrets.get(SECRET_ANTHROPIC_KEY)) || process.env.ANTHROPIC_API_KEY || undefined;
}

/** What Draft and Run Ticket go on with: the model setting as it now is, or the recorded sample's answers. */
export type ModelWay = 'setting' | 'sample';

/**
 * The model a run needs, before any run: whether the model setting can run a ticket (a key, a
 * chat model), the ways in when it cannot (a key, the editor's chat model, the recorded sample),
 * the context key the runs view's welcome shows them by, and the walkthrough's one offer.
 */
export class ModelSetup extends Disposable {
  /** Says how tickets run in this workspace; a click changes it. */
  private readonly status: vscode.StatusBarItem;

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly log: vscode.LogOutputChannel,
  ) {
    super();
    this.status = this._register(vscode.window.createStatusBarItem('ticketRunner.model', vscode.StatusBarAlignment.Right, 100));
    this.status.name = 'Ticket Runner Model';
    this.status.command = Command.chooseWay;
    const update = () => void this.updateContext();
    // The first ticket of a project (a draft from its test's code lens) brings the status bar in.
    const tickets = this._register(vscode.workspace.createFileSystemWatcher('**/.tickets/*', false, true, true));
    this._register(tickets.onDidCreate(update));
    this._register(
      context.secrets.onDidChange((e) => {
        if (e.key === SECRET_ANTHROPIC_KEY) update();
      }),
    );
    this._register(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration(`${SECTION}.${SettingKey.model}`) || e.affectsConfiguration(`${SECTION}.${SettingKey.lmFamily}`))
          update();
      }),
    );
    this._register(vscode.lm.onDidChangeChatModels(update));
  }

  private async facts(folder: vscode.WorkspaceFolder | undefined): Promise<ModelFacts> {
    const { model, lmFamily } = readSettings(vscode.workspace.getConfiguration(SECTION, folder?.uri));
    const chatModels = model === 'vscode-lm' ? (await vscode.lm.selectChatModels(lmFamily ? { family: lmFamily } : {})).length : 0;
    return { model, lmFamily, hasKey: !!(await anthropicKey(this.context.secrets)), chatModels };
  }

  /** Why the folder's model setting cannot run a ticket now; undefined when it can. */
  async missing(folder: vscode.WorkspaceFolder | undefined, task: 'run' | 'draft' = 'run'): Promise<string | undefined> {
    return missingModel(await this.facts(folder), task);
  }

  /** The way the user chose for this workspace, if any. */
  way(): RunWay | undefined {
    return this.context.workspaceState.get<RunWay>(RUN_WAY_KEY);
  }

  /** Remembers the way for this workspace: Run Ticket asks no more, and the status bar says it. */
  async setWay(way: RunWay): Promise<void> {
    if (this.way() === way) return;
    await this.context.workspaceState.update(RUN_WAY_KEY, way);
    this.log.info(`way to run tickets in this workspace: ${way === 'sample' ? 'the recorded sample' : 'the model setting'}`);
    await this.updateContext();
  }

  /**
   * Sets the context key and the status bar for the window's first folder, and says what is
   * missing. The recorded sample, once chosen, can run: the runs view then offers Run Ticket.
   */
  async updateContext(): Promise<string | undefined> {
    const facts = await this.facts(vscode.workspace.workspaceFolders?.[0]);
    const missing = missingModel(facts);
    const status = wayStatus(facts, this.way());
    this.status.text = status.text;
    this.status.tooltip = status.tooltip;
    this.status.accessibilityInformation = { label: `Ticket Runner: ${status.tooltip}` };
    // The extension also starts for a test file's code lens in any project: the status bar is
    // Ticket Runner's only where tickets are.
    if (await hasTickets()) this.status.show();
    else this.status.hide();
    await vscode.commands.executeCommand('setContext', MODEL_READY_CONTEXT, status.ready);
    return status.ready ? undefined : missing;
  }

  /**
   * At activation: a trusted window whose model cannot run is offered the walkthrough, once, in a
   * notification (the editor is not taken over; the runs view's welcome keeps the ways in).
   */
  async offerWalkthrough(): Promise<void> {
    const missing = await this.updateContext();
    if (!missing || !vscode.workspace.isTrusted || this.context.globalState.get(OFFERED_KEY)) return;
    // Started by a test file's code lens in a project with no ticket: nothing is offered unasked.
    if (!(await hasTickets())) return;
    await this.context.globalState.update(OFFERED_KEY, true);
    this.log.info(`model: ${missing} Offering the walkthrough.`);
    if (
      (await showMessage('info', `${missing} The walkthrough shows the ways to choose one, and a first run.`, OPEN_WALKTHROUGH)) ===
      OPEN_WALKTHROUGH
    )
      await this.openWalkthrough();
  }

  openWalkthrough(): Thenable<unknown> {
    return vscode.commands.executeCommand('workbench.action.openWalkthrough', `${this.context.extension.id}#${WALKTHROUGH_ID}`, false);
  }

  /**
   * Before a run or a draft: the model setting can run, or the user is asked for a way in, as
   * buttons of the error's dialog. 'setting': go on with the setting (it can run now); 'sample': run with
   * the recorded answers (offered to a run, not a draft); undefined: the user backed out.
   */
  async ensure(folder: vscode.WorkspaceFolder | undefined, task: 'run' | 'draft'): Promise<ModelWay | undefined> {
    if (task === 'run' && this.way() === 'sample') return 'sample';
    const o = { sample: task === 'run' };
    let missing = await this.missing(folder, task);
    let noChatModel = false;
    while (missing) {
      const question = waysInQuestion(missing, { sample: o.sample, noChatModel });
      // A modal, since the run or the draft cannot go on without an answer; a question, not an error.
      const way = wayOf(
        await vscode.window.showInformationMessage(question.message, { modal: true, detail: question.detail }, ...question.actions),
      );
      this.log.info(`model: ${missing} Chosen: ${way ?? 'none'}`);
      if (!way) return undefined;
      if (way === 'sample') {
        await this.setWay('sample');
        return 'sample';
      }
      const used = await this.takeWay(way);
      if (used === undefined) return undefined;
      noChatModel = way === 'editor' && !used;
      missing = await this.missing(folder, task);
    }
    return 'setting';
  }

  /**
   * Takes the key or the editor's model as the way to run: asks for it, sets the model setting, and
   * leaves the recorded sample. True when taken; false when the editor offers no chat model;
   * undefined when the user closed the question.
   */
  async takeWay(way: Exclude<WayIn, 'sample'>): Promise<boolean | undefined> {
    if (way === 'key') {
      if (!(await this.setApiKey())) return undefined;
      await this.setModel('anthropic');
      return true;
    }
    return this.useEditorModel();
  }

  /** "Choose How Tickets Run", from the status bar and the palette: the three ways, the current one marked. */
  async chooseWay(): Promise<void> {
    const facts = await this.facts(vscode.workspace.workspaceFolders?.[0]);
    const chosen = await vscode.window.showQuickPick(wayChoices(currentWay(facts, this.way())), {
      title: 'Ticket Runner: how do tickets run in this workspace?',
      placeHolder: 'A model writes the change; the recorded sample replays saved answers, no model called',
    });
    if (!chosen) return;
    if (chosen.way !== 'sample') {
      if ((await this.takeWay(chosen.way)) === false) void showMessage('warning', NO_CHAT_MODEL);
      return;
    }
    await this.setWay('sample');
    void showMessage('info', 'Run Ticket now replays the recorded sample in this workspace: no model is called.');
  }

  /** Asks for the key in a password box and keeps it in SecretStorage (empty removes it). True when a key was stored. */
  async setApiKey(): Promise<boolean> {
    const key = await vscode.window.showInputBox({
      title: 'Ticket Runner: Anthropic API key',
      password: true,
      ignoreFocusOut: true,
      placeHolder: 'sk-ant-…',
      prompt: "Stored in the editor's secret storage; never written to a log or shown in a view. Empty: remove it.",
    });
    if (key === undefined) return false;
    if (key.trim()) await this.context.secrets.store(SECRET_ANTHROPIC_KEY, key.trim());
    else await this.context.secrets.delete(SECRET_ANTHROPIC_KEY);
    // A key set is a way chosen: the recorded sample is left.
    if (key.trim()) await this.setWay('setting');
    this.log.info(key.trim() ? 'Anthropic API key stored in SecretStorage' : 'Anthropic API key removed');
    void showMessage('info', key.trim() ? 'Anthropic API key stored.' : 'Anthropic API key removed.');
    return !!key.trim();
  }

  /**
   * Switches the model setting to the editor's chat models, the one the user picks when there are
   * several. True when switched; false when the editor offers none; undefined when the pick was closed.
   */
  async useEditorModel(): Promise<boolean | undefined> {
    const models = await vscode.lm.selectChatModels({});
    if (!models.length) return false;
    const items = models.map((m) => ({ label: m.name, description: `${m.vendor} · ${m.family}`, family: m.family }));
    const chosen =
      items.length === 1
        ? items[0]
        : await vscode.window.showQuickPick(items, {
            title: 'Ticket Runner: which chat model runs tickets?',
            placeHolder: 'The editor offers these chat models',
          });
    if (!chosen) return undefined;
    await this.setModel('vscode-lm', items.length === 1 ? DEFAULTS.lmFamily : chosen.family);
    await this.setWay('setting');
    void showMessage(
      'info',
      `Ticket Runner now runs tickets with the editor's chat model ${chosen.label} (the "Model" setting of Ticket Runner is vscode-lm).`,
    );
    return true;
  }

  /**
   * Sets the model setting, and the chat model's family beside it, where the user set the model
   * before, else in the user's settings. They are window settings: read and written with no folder
   * (a folder's target is refused).
   */
  private async setModel(model: ModelProviderSetting, lmFamily?: string): Promise<void> {
    const config = vscode.workspace.getConfiguration(SECTION);
    const target =
      settingTarget(config.inspect(SettingKey.model)) === 'workspace'
        ? vscode.ConfigurationTarget.Workspace
        : vscode.ConfigurationTarget.Global;
    if (config.get(SettingKey.model, DEFAULTS.model) !== model) await config.update(SettingKey.model, model, target);
    if (lmFamily !== undefined) await config.update(SettingKey.lmFamily, lmFamily, target);
    this.log.info(`model setting: ${model}${lmFamily ? ` (family ${lmFamily})` : ''}`);
  }

  /** The commands of the ways in, for the palette, the walkthrough and the runs view's welcome. */
  register(): vscode.Disposable[] {
    return [
      vscode.commands.registerCommand(Command.setApiKey, () => this.setApiKey()),
      vscode.commands.registerCommand(Command.useEditorModel, async () => {
        const used = await this.useEditorModel();
        if (used === false) void showMessage('warning', NO_CHAT_MODEL);
        return used;
      }),
      vscode.commands.registerCommand(Command.chooseWay, () => this.chooseWay()),
      vscode.commands.registerCommand(Command.getStarted, () => this.openWalkthrough()),
    ];
  }
}
