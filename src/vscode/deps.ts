import * as vscode from 'vscode';
import { UserInputError } from '../core/errors';
import type { ModelPort } from '../core/ports/model';
import type { RunEvent } from '../core/schema/events';
import type { WiredDeps } from '../node/runResources';
import { wiredSettings } from '../node/wiredSettings';
import type { ModelNeeds } from './runService';
import type { EditorRunSettings } from './runSettings';
import { anthropicKey } from './modelSetup';
import { readSettings, SECTION } from './settings';
import type { SaveLog } from './userSaves';

/**
 * Builds the pipeline's dependencies for one run in one workspace folder, from the settings the
 * run read once and hands to the core too. Everything heavy (the TypeScript language service,
 * Tree-sitter, the Anthropic SDK) is imported here, on the first run, never at activation.
 */
export async function depsForFolder(
  folder: vscode.WorkspaceFolder,
  ticketPath: string,
  onEvent: (e: RunEvent) => void,
  secrets: vscode.SecretStorage,
  log: vscode.LogOutputChannel,
  saves: SaveLog,
  needs: ModelNeeds,
  { editor: settings, run }: EditorRunSettings,
): Promise<WiredDeps> {
  const { wireNodeDeps } = await import('../node/wire.js');
  let modelPort: ModelPort | undefined;
  const env: Record<string, string | undefined> = {};
  // A call that makes no model call (a rejection, a rollback) needs no provider and no key.
  const model = needs.noModel ? 'none' : (needs.model ?? settings.model);
  if (model === 'vscode-lm') {
    const { selectLmModel } = await import('./lmModel.js');
    modelPort = await selectLmModel(settings.lmFamily);
  } else if (model === 'anthropic') {
    env.ANTHROPIC_API_KEY = await keyOrStop(secrets);
  }
  const deps = await wireNodeDeps({
    workspaceRoot: folder.uri.fsPath,
    model: model === 'vscode-lm' ? 'none' : model,
    modelPort,
    ticketPath,
    continuesRun: needs.continuesRun,
    env,
    onEvent,
    ...wiredSettings(run),
    userSaves: saves.of(folder.uri.fsPath),
  });
  if (settings.diagnostics === 'editor' && deps.diagnostics) {
    const { EditorDiagnostics } = await import('./editorDiagnostics.js');
    deps.diagnostics = new EditorDiagnostics(folder, { fallback: deps.diagnostics, log });
  }
  log.info(
    `run deps for ${folder.name}: model ${deps.model.info.provider} (${deps.model.info.model}), diagnostics ${settings.diagnostics}`,
  );
  return deps;
}

/** The Anthropic key, or the error that says how to set one (Run Ticket and Draft ask for a way in before they get here). */
async function keyOrStop(secrets: vscode.SecretStorage): Promise<string> {
  const key = await anthropicKey(secrets);
  if (!key)
    throw new UserInputError(
      'No Anthropic API key: run "Ticket Runner: Set Anthropic API Key", or choose another model in the "Model" setting of Ticket Runner.',
    );
  return key;
}

/** The model Draft Ticket from Text asks: the one the folder's runs use (ticketRunner.model), with no run around it. */
export async function draftModelFor(folder: vscode.WorkspaceFolder, ticketPath: string, secrets: vscode.SecretStorage): Promise<ModelPort> {
  const settings = readSettings(vscode.workspace.getConfiguration(SECTION, folder.uri));
  if (settings.model === 'vscode-lm') {
    const { selectLmModel } = await import('./lmModel.js');
    return selectLmModel(settings.lmFamily);
  }
  const env: Record<string, string | undefined> = {};
  if (settings.model === 'anthropic') {
    env.ANTHROPIC_API_KEY = await keyOrStop(secrets);
  }
  const { wireDraftModel } = await import('../node/wire.js');
  return wireDraftModel({ workspaceRoot: folder.uri.fsPath, model: settings.model, ticketPath, env });
}
