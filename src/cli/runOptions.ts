import { UserInputError } from '../core/errors';
import { resolveRunSettings, type RunSettings } from '../core/loop/runSettings';
import { parseGateList } from '../core/stages/common/gateConfig';
import type { FlagsOf, OptionSpecs } from './command';

/** The options of `run` that `resume`, `resolve` and every ticket of a `batch` take too. */
export const RUN_OPTIONS = {
  attempts: { type: 'string' },
  retries: { type: 'string' },
  'max-tool-calls': { type: 'string' },
  'max-calls': { type: 'string' },
  'max-tokens': { type: 'string' },
  'max-dollars': { type: 'string' },
  'max-wall-ms': { type: 'string' },
  'test-timeout-ms': { type: 'string' },
  'test-command': { type: 'string' },
  gates: { type: 'string' },
  'build-command': { type: 'string' },
  'coverage-threshold': { type: 'string' },
  'optional-gates': { type: 'string' },
  'all-project-tests': { type: 'boolean' },
  'require-sandbox': { type: 'boolean' },
  'pass-env': { type: 'string' },
} as const satisfies OptionSpecs;

export type RunFlags = FlagsOf<typeof RUN_OPTIONS>;

/** A numeric flag, checked: a bad value is one line naming the flag. */
export function num(
  flags: Readonly<Record<string, string | boolean | undefined>>,
  name: string,
  integer = true,
  zero = false,
): number | undefined {
  const raw = flags[name];
  if (raw === undefined || typeof raw !== 'string') return undefined;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0 || (n === 0 && !zero) || (integer && !Number.isInteger(n))) {
    throw new UserInputError(`--${name} must be a ${zero ? 'non-negative' : 'positive'} ${integer ? 'integer' : 'number'}, got "${raw}"`);
  }
  return n;
}

/** A run's settings from its flags; the defaults are the core's, the same as the extension's. */
export function runSettingsFrom(f: RunFlags): RunSettings {
  const raw = f['coverage-threshold'];
  const coverageThreshold = raw === undefined ? undefined : Number(raw);
  if (coverageThreshold !== undefined && !(coverageThreshold >= 0 && coverageThreshold <= 1)) {
    throw new UserInputError(`--coverage-threshold must be a number from 0 to 1, got "${raw}"`);
  }
  return resolveRunSettings({
    attempts: num(f, 'attempts'),
    retries: num(f, 'retries', true, true),
    maxToolCalls: num(f, 'max-tool-calls', true, true),
    modelCalls: num(f, 'max-calls'),
    tokens: num(f, 'max-tokens'),
    dollars: num(f, 'max-dollars', false),
    wallMs: num(f, 'max-wall-ms'),
    gates: f.gates === undefined ? undefined : parseGateList(f.gates),
    optionalGates: f['optional-gates'] === undefined ? undefined : parseGateList(f['optional-gates']),
    buildCommand: f['build-command'],
    coverageThreshold,
    ...(f['all-project-tests'] === true ? { projectTests: 'all' as const } : {}),
    testTimeoutMs: num(f, 'test-timeout-ms'),
    testCommand: f['test-command'],
    requireSandbox: f['require-sandbox'] === true,
    passEnv: (f['pass-env'] ?? '')
      .split(',')
      .map((n) => n.trim())
      .filter(Boolean),
  });
}
