import type { Budget, RecoveryPolicy } from '../schema/events';
import type { GateName } from '../schema/gates';
import { runBudget } from '../recovery/policy';
import { DEFAULT_COVERAGE_THRESHOLD, DEFAULT_GATES, type GateSettings, type ProjectTestsScope } from '../stages/common/gateConfig';
import { DEFAULT_TEST_TIMEOUT_MS } from '../stages/common/context';

/**
 * What a host says about a run, each value absent when the user set nothing: the CLI's flags
 * and the extension's settings are parsed into this, and `resolveRunSettings` alone supplies
 * the defaults, so the same ticket runs the same way in the editor and in CI.
 */
export interface RunSettingsInput {
  attempts?: number;
  retries?: number;
  maxToolCalls?: number;
  modelCalls?: number;
  tokens?: number;
  dollars?: number;
  wallMs?: number;
  gates?: readonly GateName[];
  optionalGates?: readonly GateName[];
  buildCommand?: string;
  coverageThreshold?: number;
  projectTests?: ProjectTestsScope;
  testTimeoutMs?: number;
  testCommand?: string;
  requireSandbox?: boolean;
  passEnv?: readonly string[];
}

/** A run's settings, defaults applied: what both hosts hand to the wiring and to `startRun`. */
export interface RunSettings {
  budget: Budget;
  recovery: Partial<RecoveryPolicy>;
  gates: GateSettings;
  testTimeoutMs: number;
  testCommand?: string;
  requireSandbox: boolean;
  passEnv: string[];
}

export function resolveRunSettings(input: RunSettingsInput): RunSettings {
  const recovery = Object.fromEntries(
    Object.entries({ retries: input.retries, maxToolCalls: input.maxToolCalls }).filter(([, v]) => v !== undefined),
  ) as Partial<RecoveryPolicy>;
  const enabled = [...(input.gates ?? DEFAULT_GATES)];
  const buildCommand = input.buildCommand?.trim() || undefined;
  // A build command is a request for the build gate.
  if (buildCommand && !enabled.includes('build')) enabled.push('build');
  return {
    budget: runBudget(recovery, {
      attempts: input.attempts,
      modelCalls: input.modelCalls,
      tokens: input.tokens,
      dollars: input.dollars,
      wallMs: input.wallMs,
    }),
    recovery,
    gates: {
      enabled,
      optional: [...(input.optionalGates ?? [])],
      ...(buildCommand ? { buildCommand } : {}),
      coverageThreshold: input.coverageThreshold ?? DEFAULT_COVERAGE_THRESHOLD,
      projectTests: input.projectTests ?? 'reach',
    },
    testTimeoutMs: input.testTimeoutMs ?? DEFAULT_TEST_TIMEOUT_MS,
    ...(input.testCommand?.trim() ? { testCommand: input.testCommand.trim() } : {}),
    requireSandbox: input.requireSandbox ?? false,
    passEnv: [...(input.passEnv ?? [])],
  };
}
