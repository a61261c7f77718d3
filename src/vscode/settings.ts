import type * as vscode from 'vscode';
import { DEFAULT_RECOVERY } from '../core/recovery/policy';
import { DEFAULT_TEST_TIMEOUT_MS } from '../core/stages/common/context';
import { DEFAULT_COVERAGE_THRESHOLD, DEFAULT_GATES, PROJECT_TESTS_SCOPES, type ProjectTestsScope } from '../core/stages/common/gateConfig';

/**
 * Every setting key of the extension, in one place. package.json `contributes.configuration`
 * declares the same keys; test/unit/vscodeManifest.test.ts checks that the two agree.
 */
export const SECTION = 'ticketRunner';

export const SettingKey = {
  /** Which ModelPort a run uses: the scripted replay (demo, tests), Anthropic, or a vscode.lm chat model. */
  model: 'model',
  /** vscode.lm only: the model family to select (e.g. "gpt-4o"); empty picks the first offered. */
  lmFamily: 'lmFamily',
  /** Rung 2: how many times a failed attempt is retried; rung 3 then makes one more with thinking (attempts = retries + 2). */
  retryBudget: 'retryBudget',
  /** Run budgets (0: no limit): model calls, tokens, dollars, wall time in milliseconds. */
  maxModelCalls: 'maxModelCalls',
  maxTokens: 'maxTokens',
  maxDollars: 'maxDollars',
  maxWallMs: 'maxWallMs',
  /** End-of-ticket gates to run after the last attempt passes. */
  gates: 'gates',
  /** Gates whose error is reported as "not judged" instead of failing the run (gates fail closed otherwise). */
  optionalGates: 'optionalGates',
  /** The build gate's shell command, run in the workspace folder; empty: the build gate is skipped. */
  buildCommand: 'buildCommand',
  /** The share (0 to 1) of the changed executable lines the ticket's tests must run, for the coverage gate. */
  coverageThreshold: 'coverageThreshold',
  /** Which of the project's own tests the projectTests gate runs: those that reach the change, or all. */
  projectTests: 'projectTests',
  /** Overrides the test command the workspace's runner adapter would use; empty: detect. */
  testCommand: 'testCommand',
  /** Per test run time limit, in milliseconds. */
  testTimeoutMs: 'testTimeoutMs',
  /** Where diagnostics come from: the editor's own TypeScript server, or the headless language service. */
  diagnostics: 'diagnostics',
  /** A run whose OS sandbox cannot start stops before its first step, instead of going on without it. */
  requireSandbox: 'requireSandbox',
  /** Variables of the editor's environment that tests get by name, secret-looking or not. */
  passEnv: 'passEnv',
  /** The code lens on a test file that drafts a ticket taking it as the oracle (testCodeLens.ts). */
  testCodeLens: 'testCodeLens',
  /** Run Plan commits each ticket that passes on the plan's branch (plan/<id>) when the workspace is in git. */
  planCommit: 'plan.commit',
} as const;
export type SettingKey = (typeof SettingKey)[keyof typeof SettingKey];

export const MODEL_PROVIDERS = ['scripted', 'anthropic', 'vscode-lm'] as const;
export type ModelProviderSetting = (typeof MODEL_PROVIDERS)[number];
export const DIAGNOSTICS_SOURCES = ['editor', 'headless'] as const;

export interface Settings {
  model: ModelProviderSetting;
  lmFamily: string;
  retryBudget: number;
  maxModelCalls: number;
  maxTokens: number;
  maxDollars: number;
  maxWallMs: number;
  gates: string[];
  optionalGates: string[];
  buildCommand: string;
  coverageThreshold: number;
  projectTests: ProjectTestsScope;
  testCommand: string;
  testTimeoutMs: number;
  diagnostics: (typeof DIAGNOSTICS_SOURCES)[number];
  requireSandbox: boolean;
  passEnv: string[];
  testCodeLens: boolean;
  planCommit: boolean;
}

/** The settings' defaults: the core's, which the CLI's are too. */
export const DEFAULTS: Settings = {
  model: 'anthropic',
  lmFamily: '',
  retryBudget: DEFAULT_RECOVERY.retries,
  maxModelCalls: 0,
  maxTokens: 0,
  maxDollars: 0,
  maxWallMs: 0,
  gates: [...DEFAULT_GATES],
  optionalGates: [],
  buildCommand: '',
  coverageThreshold: DEFAULT_COVERAGE_THRESHOLD,
  projectTests: 'reach',
  testCommand: '',
  testTimeoutMs: DEFAULT_TEST_TIMEOUT_MS,
  diagnostics: 'editor',
  requireSandbox: false,
  passEnv: [],
  testCodeLens: true,
  planCommit: true,
};

/** A budget setting: a non-negative number (0: no limit), anything malformed counting as none. */
function limit(config: vscode.WorkspaceConfiguration, key: SettingKey, integer: boolean): number {
  const n = config.get<number>(key, 0);
  return typeof n === 'number' && Number.isFinite(n) && n > 0 && (!integer || Number.isInteger(n)) ? n : 0;
}

/** Reads the settings for a folder, falling back to the defaults on anything malformed. */
export function readSettings(config: vscode.WorkspaceConfiguration): Settings {
  const model = config.get<string>(SettingKey.model, DEFAULTS.model);
  const diagnostics = config.get<string>(SettingKey.diagnostics, DEFAULTS.diagnostics);
  const retry = config.get<number>(SettingKey.retryBudget, DEFAULTS.retryBudget);
  const timeout = config.get<number>(SettingKey.testTimeoutMs, DEFAULTS.testTimeoutMs);
  const gates = config.get<unknown>(SettingKey.gates, DEFAULTS.gates);
  const optionalGates = config.get<unknown>(SettingKey.optionalGates, DEFAULTS.optionalGates);
  const passEnv = config.get<unknown>(SettingKey.passEnv, DEFAULTS.passEnv);
  const coverage = config.get<number>(SettingKey.coverageThreshold, DEFAULTS.coverageThreshold);
  const projectTests = config.get<string>(SettingKey.projectTests, DEFAULTS.projectTests);
  return {
    model: (MODEL_PROVIDERS as readonly string[]).includes(model) ? (model as ModelProviderSetting) : DEFAULTS.model,
    lmFamily: config.get<string>(SettingKey.lmFamily, DEFAULTS.lmFamily) ?? '',
    retryBudget: Number.isInteger(retry) && retry >= 0 && retry <= 20 ? retry : DEFAULTS.retryBudget,
    maxModelCalls: limit(config, SettingKey.maxModelCalls, true),
    maxTokens: limit(config, SettingKey.maxTokens, true),
    maxDollars: limit(config, SettingKey.maxDollars, false),
    maxWallMs: limit(config, SettingKey.maxWallMs, true),
    gates: Array.isArray(gates) ? gates.filter((g): g is string => typeof g === 'string') : DEFAULTS.gates,
    optionalGates: Array.isArray(optionalGates) ? optionalGates.filter((g): g is string => typeof g === 'string') : DEFAULTS.optionalGates,
    buildCommand: config.get<string>(SettingKey.buildCommand, DEFAULTS.buildCommand) ?? '',
    coverageThreshold: typeof coverage === 'number' && coverage >= 0 && coverage <= 1 ? coverage : DEFAULTS.coverageThreshold,
    projectTests: (PROJECT_TESTS_SCOPES as readonly string[]).includes(projectTests)
      ? (projectTests as ProjectTestsScope)
      : DEFAULTS.projectTests,
    testCommand: config.get<string>(SettingKey.testCommand, DEFAULTS.testCommand) ?? '',
    testTimeoutMs: Number.isInteger(timeout) && timeout > 0 ? timeout : DEFAULTS.testTimeoutMs,
    diagnostics: (DIAGNOSTICS_SOURCES as readonly string[]).includes(diagnostics)
      ? (diagnostics as Settings['diagnostics'])
      : DEFAULTS.diagnostics,
    requireSandbox: config.get<boolean>(SettingKey.requireSandbox, DEFAULTS.requireSandbox) === true,
    passEnv: Array.isArray(passEnv) ? passEnv.filter((n): n is string => typeof n === 'string' && n.trim() !== '') : DEFAULTS.passEnv,
    testCodeLens: config.get<boolean>(SettingKey.testCodeLens, DEFAULTS.testCodeLens) !== false,
    planCommit: config.get<boolean>(SettingKey.planCommit, DEFAULTS.planCommit) !== false,
  };
}

/** Command ids, as package.json contributes them. */
export const Command = {
  runTicket: 'ticketRunner.runTicket',
  setApiKey: 'ticketRunner.setApiKey',
  useEditorModel: 'ticketRunner.useEditorModel',
  tryRecordedSample: 'ticketRunner.tryRecordedSample',
  chooseWay: 'ticketRunner.chooseWay',
  getStarted: 'ticketRunner.getStarted',
  openRun: 'ticketRunner.openRun',
  replayRun: 'ticketRunner.replayRun',
  revealLog: 'ticketRunner.revealLog',
  deleteRun: 'ticketRunner.deleteRun',
  rollbackRun: 'ticketRunner.rollbackRun',
  resumeRun: 'ticketRunner.resumeRun',
  refreshRuns: 'ticketRunner.refreshRuns',
  acceptCorrection: 'ticketRunner.acceptCorrection',
  rejectCorrection: 'ticketRunner.rejectCorrection',
  newTicket: 'ticketRunner.newTicket',
  validateTicket: 'ticketRunner.validateTicket',
  renderTicket: 'ticketRunner.renderTicket',
  saveRunScript: 'ticketRunner.saveRunScript',
  showStats: 'ticketRunner.showStats',
  draftTicket: 'ticketRunner.draftTicket',
  draftPlan: 'ticketRunner.draftPlan',
  makeTestPass: 'ticketRunner.makeTestPass',
  evaluateRouting: 'ticketRunner.evaluateRouting',
  runPlan: 'ticketRunner.runPlan',
  resumePlan: 'ticketRunner.resumePlan',
} as const;

export const VIEW_RUNS = 'ticketRunner.runs';
export const VIEW_PLANS = 'ticketRunner.plans';
/** The context key the plans view shows on: some workspace folder has a plan file in its `.tickets/`. */
export const HAS_PLANS_CONTEXT = 'ticketRunner.hasPlans';
/** The context key the runs view's welcome and the walkthrough read: the model setting can run a ticket now. */
export const MODEL_READY_CONTEXT = 'ticketRunner.modelReady';
/** The walkthrough's id, as package.json contributes it. */
export const WALKTHROUGH_ID = 'gettingStarted';
export const WEBVIEW_TYPE = 'ticketRunner.run';
/** The SecretStorage key of the Anthropic API key. */
export const SECRET_ANTHROPIC_KEY = 'ticketRunner.anthropicApiKey';
