import type { RunSettings } from '../core/loop/runSettings';
import type { WireOptions } from './wire';

/** What the wiring takes of a run's settings: the same for the CLI and the extension. */
export type WiredSettings = Required<Pick<WireOptions, 'testTimeoutMs' | 'gates' | 'requireSandbox' | 'passEnv'>> &
  Pick<WireOptions, 'testCommand'>;

/**
 * The settings the pipeline's adapters need (the test runner's limit and command, the gates, the
 * sandbox, the environment tests may see), from the same `RunSettings` the host hands to the core;
 * the budget and the recovery rungs are the core's alone.
 */
export function wiredSettings(s: RunSettings): WiredSettings {
  return {
    testTimeoutMs: s.testTimeoutMs,
    testCommand: s.testCommand,
    gates: s.gates,
    requireSandbox: s.requireSandbox,
    passEnv: s.passEnv,
  };
}
