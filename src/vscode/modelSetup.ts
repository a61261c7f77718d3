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
import { missingModel, settingTarget, wayOf, waysInQuestion, type ModelFacts } from './waysIn';

/** Set once the walkthrough was offered: a window offers it once, not at every start. */
const OFFERED_KEY = 'ticketRunner.walkthroughOffered';
const OPEN_WALKTHROUGH = 'Open Walkthrough';

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
  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly log: vscode.LogOutputChannel,
  ) {
    super();
    const update = () => void this.updateContext();
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

  /** Sets the context key for the window's first folder, and says what is missing. */
  async updateContext(): Promise<string | undefined> {
    const missing = await this.missing(vscode.workspace.workspaceFolders?.[0]);
    await vscode.commands.executeCommand('setContext', MODEL_READY_CONTEXT, !missing);
    return missing;
  }

  /**
   * At activation: a trusted window whose model cannot run is offered the walkthrough, once, in a
   * notification (the editor is not taken over; the runs view's welcome keeps the ways in).
   */
  async offerWalkthrough(): Promise<void> {
    const missing = await this.updateContext();
    if (!missing || !vscode.workspace.isTrusted || this.context.globalState.get(OFFERED_KEY)) return;
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
    const o = { sample: task === 'run' };
    let missing = await this.missing(folder, task);
    let noChatModel = false;
    while (missing) {
      const question = waysInQuestion(missing, { sample: o.sample, noChatModel });
      // A modal: the user asked for a run or a draft, which cannot go on without an answer.
      const way = wayOf(
        await vscode.window.showErrorMessage(question.message, { modal: true, detail: question.detail }, ...question.actions),
      );
      this.log.info(`model: ${missing} Chosen: ${way ?? 'none'}`);
      if (!way) return undefined;
      if (way === 'sample') return 'sample';
      if (way === 'key') {
        if (!(await this.setApiKey())) return undefined;
        await this.setModel('anthropic');
      }
      if (way === 'editor') {
        const used = await this.useEditorModel();
        if (used === undefined) return undefined;
        noChatModel = !used;
      }
      missing = await this.missing(folder, task);
    }
    return 'setting';
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
        if (used === false)
          void showMessage(
            'warning',
            'The editor offers no chat model: install or sign in to a chat provider (GitHub Copilot, for example), then choose it again.',
          );
        return used;
      }),
      vscode.commands.registerCommand(Command.getStarted, () => this.openWalkthrough()),
    ];
  }
}
