import assert from 'node:assert/strict';
import { runSettingsFrom } from '../../../src/cli/runOptions';
import { resolveRunSettings, type RunSettings } from '../../../src/core/loop/runSettings';
import { wiredSettings } from '../../../src/node/wiredSettings';

/** What the core takes of a run's settings itself; every other field is the adapters'. */
const CORE_ONLY: readonly (keyof RunSettings)[] = ['budget', 'recovery'];

describe("a run's settings reach the wiring", () => {
  it('hands the adapters what the user set: the test limit and command, the gates, the sandbox, the environment', () => {
    const s = resolveRunSettings({
      testTimeoutMs: 5000,
      testCommand: ' npx jest ',
      gates: ['typecheck'],
      optionalGates: ['typecheck'],
      buildCommand: 'npm run build',
      coverageThreshold: 0.5,
      projectTests: 'all',
      requireSandbox: true,
      passEnv: ['FOO'],
    });
    assert.deepEqual(wiredSettings(s), {
      testTimeoutMs: 5000,
      testCommand: 'npx jest',
      gates: {
        enabled: ['typecheck', 'build'],
        optional: ['typecheck'],
        buildCommand: 'npm run build',
        coverageThreshold: 0.5,
        projectTests: 'all',
      },
      requireSandbox: true,
      passEnv: ['FOO'],
    });
  });

  it('leaves out no setting the core does not take itself, whichever host resolved it', () => {
    const s = runSettingsFrom({ 'test-command': 'npx jest', 'pass-env': 'FOO' });
    const wired = wiredSettings(s);
    for (const key of Object.keys(s) as (keyof RunSettings)[]) {
      if (CORE_ONLY.includes(key)) assert.ok(!(key in wired), `${key} is the core's alone`);
      else assert.deepEqual(wired[key as keyof typeof wired], s[key], `${key} reaches the wiring`);
    }
  });
});
