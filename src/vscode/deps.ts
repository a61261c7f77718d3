import * as vscode from 'vscode';
import { UserInputError } from '../core/errors';
import type { ModelPort } from '../core/ports/model';
import type { RunEvent } from '../core/schema/events';
import type { WiredDeps } from '../node/runResources';
import type { ModelNeeds } from './runService';
import { runSettingsOf } from './runSettings';
import { readSettings, SECRET_ANTHROPIC_KEY, SECTION } from './settings';

/**
 * Builds the pipeline's dependencies for one run in one workspace folder. Everything heavy
 * (the TypeScript language service, Tree-sitter, the Anthropic SDK) is imported here, on
 * the first run, never at activation.
 */
export async function depsForFolder(
  folder: vscode.WorkspaceFolder,
  ticketPath: string,
  onEvent: (e: RunEvent) => void,
  secrets: vscode.SecretStorage,
  log: vscode.LogOutputChannel,
  needs: ModelNeeds = {},
): Promise<WiredDeps> {
  const settings = readSettings(vscode.workspace.getConfiguration(SECTION, folder.uri));
  const run = runSettingsOf(settings);
  const { wireNodeDeps } = await import('../node/wire.js');
  let modelPort: ModelPort | undefined;
  const env: Record<string, string | undefined> = {};
  // A call that makes no model call (a rejection, a rollback) needs no provider and no key.
  const model = needs.noModel ? 'none' : settings.model;
  if (model === 'vscode-lm') {
    const { selectLmModel } = await import('./lmModel.js');
    modelPort = await selectLmModel(settings.lmFamily);
  } else if (model === 'anthropic') {
    const key = (await secrets.get(SECRET_ANTHROPIC_KEY)) ?? process.env.ANTHROPIC_API_KEY;
    if (!key) throw new UserInputError('No Anthropic API key: run "Ticket Runner: Set Anthropic API Key", or pick another provider in the ticketRunner.model setting.');
    env.ANTHROPIC_API_KEY = key;
  }
  const deps = await wireNodeDeps({
    workspaceRoot: folder.uri.fsPath,
    model: model === 'vscode-lm' ? 'none' : model,
    modelPort,
    ticketPath,
    continuesRun: needs.continuesRun,
    env,
    onEvent,
    testTimeoutMs: run.testTimeoutMs,
    testCommand: run.testCommand,
    requireSandbox: run.requireSandbox,
    passEnv: run.passEnv,
    gates: run.gates,
  });
  if (settings.diagnostics === 'editor' && deps.diagnostics) {
    const { EditorDiagnostics } = await import('./editorDiagnostics.js');
    deps.diagnostics = new EditorDiagnostics(folder, { fallback: deps.diagnostics, log });
  }
  log.info(`run deps for ${folder.name}: model ${deps.model.info.provider} (${deps.model.info.model}), diagnostics ${settings.diagnostics}`);
  return deps;
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
    const key = (await secrets.get(SECRET_ANTHROPIC_KEY)) ?? process.env.ANTHROPIC_API_KEY;
    if (!key) throw new UserInputError('No Anthropic API key: run "Ticket Runner: Set Anthropic API Key", or pick another provider in the ticketRunner.model setting.');
    env.ANTHROPIC_API_KEY = key;
  }
  const { wireDraftModel } = await import('../node/wire.js');
  return wireDraftModel({ workspaceRoot: folder.uri.fsPath, model: settings.model, ticketPath, env });
}
