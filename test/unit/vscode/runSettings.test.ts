import assert from 'node:assert/strict';
import type * as vscode from 'vscode';
import { runSettingsFrom } from '../../../src/cli/runOptions';
import { resolveRecovery } from '../../../src/core/recovery/policy';
import type { RunSettings } from '../../../src/core/loop/runSettings';
import { wiredSettings } from '../../../src/node/wiredSettings';
import { readRunSettings, runSettingsOf } from '../../../src/vscode/runSettings';
import { readSettings } from '../../../src/vscode/settings';

/** A configuration where the user set nothing: every key answers its default. */
function configWith(values: Record<string, unknown> = {}): vscode.WorkspaceConfiguration {
  return { get: (key: string, fallback?: unknown) => (key in values ? values[key] : fallback) } as unknown as vscode.WorkspaceConfiguration;
}

/** What a run does with its settings: the recovery policy as the run resolves it. */
const effective = (s: RunSettings) => ({ ...s, recovery: resolveRecovery(s.recovery) });

describe('the editor and the CLI run a ticket alike', () => {
  it('resolve the same settings for an empty configuration and no flags: gates, budgets, rungs, test limits, sandbox', () => {
    const cli = runSettingsFrom({});
    const editor = runSettingsOf(readSettings(configWith()));
    assert.deepEqual(effective(editor), effective(cli));
    assert.deepEqual(cli.gates.enabled, ['typecheck', 'lint', 'projectTests', 'implementationReview', 'testReview', 'coverage']);
    assert.equal(cli.gates.projectTests, 'reach');
  });

  it('resolve the same settings when the user sets the same things in each', () => {
    const cli = runSettingsFrom({
      retries: '4',
      'max-calls': '9',
      'max-wall-ms': '60000',
      gates: 'typecheck,lint',
      'build-command': 'npm run build',
      'test-timeout-ms': '5000',
      'require-sandbox': true,
      'pass-env': 'FOO',
      'coverage-threshold': '1',
      'all-project-tests': true,
    });
    const editor = runSettingsOf(
      readSettings(
        configWith({
          retryBudget: 4,
          maxModelCalls: 9,
          maxWallMs: 60000,
          gates: ['typecheck', 'lint'],
          buildCommand: 'npm run build',
          testTimeoutMs: 5000,
          requireSandbox: true,
          passEnv: ['FOO'],
          coverageThreshold: 1,
          projectTests: 'all',
        }),
      ),
    );
    assert.deepEqual(effective(editor), effective(cli));
    assert.deepEqual(cli.gates.enabled, ['typecheck', 'lint', 'build']);
    assert.equal(cli.gates.projectTests, 'all');
    assert.equal(cli.budget.attempts, 1 + 4 + 1, 'room for the whole ladder of the retries set');
  });

  it('hand the wiring the same settings when the user sets the same things in each', () => {
    const cli = runSettingsFrom({
      'test-timeout-ms': '5000',
      'test-command': 'npx jest',
      gates: 'typecheck',
      'require-sandbox': true,
      'pass-env': 'FOO,BAR',
    });
    const editor = readRunSettings(
      configWith({ testTimeoutMs: 5000, testCommand: 'npx jest', gates: ['typecheck'], requireSandbox: true, passEnv: ['FOO', 'BAR'] }),
    );
    assert.deepEqual(wiredSettings(editor.run), wiredSettings(cli));
  });
});

describe('a run in the editor reads its settings once', () => {
  it('gives the core and the wiring settings of one read, even when the configuration changes between reads', () => {
    let reads = 0;
    // Every read answers a later value, as if the user kept editing the settings while the run started.
    const config = {
      get: (key: string, fallback?: unknown) => (key === 'testTimeoutMs' || key === 'maxModelCalls' ? 1000 * ++reads : fallback),
    } as unknown as vscode.WorkspaceConfiguration;
    const { editor, run } = readRunSettings(config);
    assert.equal(run.testTimeoutMs, editor.testTimeoutMs);
    assert.equal(run.budget.modelCalls, editor.maxModelCalls);
    assert.equal(reads, 2, 'each key read once');
  });
});
