import * as vscode from 'vscode';
import { UserInputError } from '../core/errors';
import type { PipelineDeps } from '../core/stages/context';
import type { ModelPort } from '../core/ports/model';
import { runBudget } from '../core/recovery/policy';
import type { Budget, RecoveryPolicy, RunEvent } from '../core/schema/events';
import { GATE_NAMES, type GateName } from '../core/schema/gates';

const onlyGates = (names: readonly string[]): GateName[] => names.filter((g): g is GateName => (GATE_NAMES as readonly string[]).includes(g));
import { readSettings, SECRET_ANTHROPIC_KEY, SECTION, type Settings } from './settings';

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
): Promise<PipelineDeps> {
  const settings = readSettings(vscode.workspace.getConfiguration(SECTION, folder.uri));
  const { wireNodeDeps } = await import('../node/wire.js');
  let modelPort: ModelPort | undefined;
  const env: Record<string, string | undefined> = {};
  if (settings.model === 'vscode-lm') {
    const { selectLmModel } = await import('./lmModel.js');
    modelPort = await selectLmModel(settings.lmFamily);
  } else if (settings.model === 'anthropic') {
    const key = (await secrets.get(SECRET_ANTHROPIC_KEY)) ?? process.env.ANTHROPIC_API_KEY;
    if (!key) throw new UserInputError('No Anthropic API key: run "Ticket Runner: Set Anthropic API Key", or pick another provider in the ticketRunner.model setting.');
    env.ANTHROPIC_API_KEY = key;
  }
  const deps = await wireNodeDeps({
    workspaceRoot: folder.uri.fsPath,
    model: settings.model === 'vscode-lm' ? 'none' : settings.model,
    modelPort,
    ticketPath,
    env,
    onEvent,
    testTimeoutMs: settings.testTimeoutMs,
    testCommand: settings.testCommand || undefined,
    requireSandbox: settings.requireSandbox,
    passEnv: settings.passEnv,
    gates: { enabled: onlyGates(settings.gates), optional: onlyGates(settings.optionalGates), buildCommand: settings.buildCommand || undefined },
  });
  if (settings.diagnostics === 'editor' && deps.diagnostics) {
    const { EditorDiagnostics } = await import('./editorDiagnostics.js');
    deps.diagnostics = new EditorDiagnostics(folder, { fallback: deps.diagnostics, log });
  }
  log.info(`run deps for ${folder.name}: model ${deps.model.info.provider} (${deps.model.info.model}), diagnostics ${settings.diagnostics}`);
  return deps;
}

/** The retry budget setting is rung 2's retries; rung 3 then adds its one attempt with thinking. */
export function recoveryFrom(settings: Settings): Partial<RecoveryPolicy> {
  return { retries: settings.retryBudget };
}

/** Room for the whole recovery ladder, so that every rung can fire, and the run budgets that are set. */
export function budgetFrom(settings: Settings): Budget {
  const set = (n: number) => (n > 0 ? n : undefined);
  return runBudget(recoveryFrom(settings), {
    modelCalls: set(settings.maxModelCalls),
    tokens: set(settings.maxTokens),
    dollars: set(settings.maxDollars),
    wallMs: set(settings.maxWallMs),
  });
}
