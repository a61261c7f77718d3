import { resolveRunSettings, type RunSettings } from '../core/loop/runSettings';
import { GATE_NAMES, type GateName } from '../core/schema/gates';
import type * as vscode from 'vscode';
import { readSettings, type Settings } from './settings';

const onlyGates = (names: readonly string[]): GateName[] =>
  names.filter((g): g is GateName => (GATE_NAMES as readonly string[]).includes(g));
/** A budget setting of 0 means no limit. */
const limit = (n: number): number | undefined => (n > 0 ? n : undefined);

/**
 * A run's settings from the extension's: parsed into the core's input, whose defaults are the
 * CLI's too (test/unit/vscode/runSettings.test.ts holds the two equal for an empty configuration).
 */
export function runSettingsOf(settings: Settings): RunSettings {
  return resolveRunSettings({
    retries: settings.retryBudget,
    modelCalls: limit(settings.maxModelCalls),
    tokens: limit(settings.maxTokens),
    dollars: limit(settings.maxDollars),
    wallMs: limit(settings.maxWallMs),
    gates: onlyGates(settings.gates),
    optionalGates: onlyGates(settings.optionalGates),
    buildCommand: settings.buildCommand,
    coverageThreshold: settings.coverageThreshold,
    projectTests: settings.projectTests,
    testTimeoutMs: settings.testTimeoutMs,
    testCommand: settings.testCommand,
    requireSandbox: settings.requireSandbox,
    passEnv: settings.passEnv,
  });
}

/**
 * What one run reads of its folder's configuration, once: `run` goes to the core and to the
 * wiring alike, so a setting changed while the run starts cannot reach one and not the other.
 */
export interface EditorRunSettings {
  /** The editor's own choices the wiring makes: the model, where diagnostics come from. */
  editor: Settings;
  run: RunSettings;
}

export function readRunSettings(config: vscode.WorkspaceConfiguration): EditorRunSettings {
  const editor = readSettings(config);
  return { editor, run: runSettingsOf(editor) };
}
