import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { DEFAULT_GATES, type GateSettings } from '../../../src/core/stages/common/gateConfig';
import { reduceRun, type RunState } from '../../../src/core/run/reducer';
import { runDistCli } from '../../support/cliProcess';
import { callsOf, logEvents, runTicket } from '../../support/scenario';
import { copyFixture, fixturePath } from '../../support/tempWorkspace';

/**
 * The mono-ws fixture end to end: an npm-workspaces monorepo whose app (packages/invoice,
 * vitest) imports the library (packages/money, node:test) by its package name. The package
 * is the unit: a ticket's tests run in their package with its runner, its tsconfig judges
 * its files, and a library's change is type-checked in the packages that depend on it too.
 */

const GATES: GateSettings = { enabled: [...DEFAULT_GATES] };
const gateRuns = (s: RunState) => s.gates.map((g) => `${g.gate}:${g.status}${g.afterRepairOf ? `@${g.afterRepairOf}` : ''}`);
const answer = (id: string, file: string) => readFileSync(path.join(fixturePath('mono-ws'), '.tickets', 'answers', id, file), 'utf8');
const APP_ERROR = ['packages/invoice/src/invoice.ts', 15, 'TS2554', 'Expected 1 arguments, but got 2.'];

describe('scenarios: mono-ws (npm workspaces: a library and an app that imports it by name)', function () {
  this.timeout(300_000);
  let ws: ReturnType<typeof copyFixture>;
  beforeEach(() => {
    ws = copyFixture('mono-ws');
  });
  afterEach(() => ws.dispose());
  const read = (rel: string) => readFileSync(path.join(ws.root, rel), 'utf8');

  it("MONO-1: a change scoped to the app runs only the app's vitest, in its package, and type-checks with the app's tsconfig; it passes", async () => {
    const { state } = await runTicket(ws.root, 'MONO-1', { gates: GATES });
    assert.equal(state.status, 'passed', JSON.stringify(state.finished));
    assert.deepEqual(state.manifest?.runner, { framework: 'vitest', detectedFrom: 'packages/invoice: config file vitest.config.ts' });
    const [a1] = state.attempts;
    // The ticket's tests: vitest with the package's files relative to the package (it runs there), results back in workspace paths.
    assert.deepEqual(a1?.tests?.command.slice(-1), ['test/ticket/MONO-1.test.ts']);
    assert.match(a1?.tests?.output ?? '', /RUN {2}v[\d.]+ \S+\/mono-ws\/packages\/invoice\n/);
    assert.deepEqual(
      a1?.tests?.cases.map((c) => [c.file, c.status]),
      [
        ['packages/invoice/test/ticket/MONO-1.test.ts', 'passed'],
        ['packages/invoice/test/ticket/MONO-1.test.ts', 'passed'],
      ],
    );
    // The project tests the change reaches are the app's own; the library's never import the app.
    assert.deepEqual(a1?.projectTests?.files, ['packages/invoice/test/invoice.test.ts']);
    assert.deepEqual(a1?.diagnostics?.checkedFiles, [
      'packages/invoice/src/invoice.ts',
      'packages/invoice/test/ticket/MONO-1.test.ts',
      'packages/invoice/test/invoice.test.ts',
    ]);
    assert.deepEqual(gateRuns(state), [
      'typecheck:passed',
      'lint:passed',
      'build:skipped',
      'projectTests:passed',
      'implementationReview:passed',
      'testReview:passed',
      'coverage:passed',
    ]);
    // Measured by the app package's own vitest coverage, run in that package: a file it missed would be absent, and fail.
    const coverage = state.gates.find((g) => g.gate === 'coverage')!;
    assert.match(coverage.detail, /vitest/, coverage.detail);
    assert.doesNotMatch(coverage.detail, /absent|not in the report/, coverage.detail);
    const typecheck = state.gates.find((g) => g.gate === 'typecheck')!;
    assert.match(
      typecheck.detail,
      /^packages\/invoice\/tsconfig\.json: tsc 5\.9\.3 \(the workspace's own\), kept running for the run: \d+ of \d+ files unchanged since its last check, started beside the attempt's tests, no file changed since: clean$/,
    );
    // The gate runs the project tests that reach the change: the app's; the library's never import the app.
    const projectTests = state.gates.find((g) => g.gate === 'projectTests')!.evidence;
    assert.ok(projectTests?.kind === 'projectTests');
    assert.deepEqual(projectTests.files, ['packages/invoice/test/invoice.test.ts']);
    assert.deepEqual(projectTests.selection, { by: 'reach', suite: 2 });
    assert.equal(read('packages/invoice/src/invoice.ts'), answer('MONO-1', 'invoice.ts'));
  });

  it('MONO-2, through dist/cli.js: a library change that breaks the app\'s type-check (another package, outside the scope) stops the run for the operator as "manifest is wrong", quoting the app\'s error; `resolve accept` in another process passes', () => {
    const run = runDistCli(['run', '.tickets/MONO-2.ticket.json', '--model', 'scripted', '--workspace', ws.root, '--json'], {
      timeoutMs: 240_000,
    });
    assert.equal(run.code, 2, run.stderr);
    const first = JSON.parse(run.stdout) as { runId: string; state: RunState };
    assert.equal(first.state.status, 'needsOperator', JSON.stringify(first.state.finished));
    assert.match(run.stderr, /packages\/invoice\/src\/invoice\.ts:15 TS2554/);
    assert.deepEqual(first.state.manifest?.runner, {
      framework: 'node:test',
      detectedFrom: 'packages/money: package.json scripts.test (node --test)',
    });
    const a1 = first.state.attempts[0]!;
    // The hostile shape: every test is green (vitest does not type-check); only the app's type-check tells.
    assert.equal(a1.tests?.status, 'passed');
    assert.equal(a1.projectTests?.newlyFailing.length ?? 0, 0);
    assert.deepEqual(
      a1.diagnostics?.diagnostics.map((d) => [d.file, d.line, d.code, d.message]),
      [APP_ERROR],
    );
    assert.deepEqual(a1.diagnostics?.preExisting, []);
    assert.deepEqual(
      [a1.route?.route, a1.route?.verdict, a1.route?.fact?.kind, a1.route?.fact?.file],
      ['manifest', 'confirmed', 'outsideScopeDiagnostic', 'packages/invoice/src/invoice.ts'],
    );
    assert.match(a1.route?.fact?.detail ?? '', /packages\/invoice\/src\/invoice\.ts:15 TS2554: Expected 1 arguments, but got 2\./);
    assert.deepEqual(first.state.corrections[0]!.request.proposal, { kind: 'scopeAddition', paths: ['packages/invoice/src/invoice.ts'] });

    const resolved = runDistCli(['resolve', first.runId, 'accept', '--model', 'scripted', '--workspace', ws.root], { timeoutMs: 240_000 });
    assert.equal(resolved.code, 0, resolved.stderr + resolved.stdout);
    const state = reduceRun(first.runId, logEvents(ws.root, first.runId));
    assert.equal(state.status, 'passed', JSON.stringify(state.finished));
    assert.deepEqual(
      state.attempts.map((a) => a.status),
      ['failed', 'passed'],
    );
    assert.deepEqual(gateRuns(state), [
      'typecheck:passed',
      'lint:passed',
      'build:skipped',
      'projectTests:passed',
      'implementationReview:passed',
      'testReview:passed',
      'coverage:passed',
    ]);
    // The caller in the app the change had to follow: no ticket test loads it, the app's own tests
    // reach it, so its changed lines are measured under those (the app's vitest, with its coverage), and they run.
    const coverage = state.gates.find((g) => g.gate === 'coverage')!;
    assert.ok(coverage.evidence?.kind === 'coverage');
    assert.deepEqual(
      [coverage.evidence.byProjectTests, coverage.evidence.unloaded, coverage.evidence.uncovered],
      [['packages/invoice/src/invoice.ts'], [], []],
    );
    assert.ok(
      coverage.evidence.changedLines > 0 && coverage.evidence.coveredLines === coverage.evidence.changedLines,
      JSON.stringify(coverage.evidence),
    );
    assert.match(coverage.detail, /measured under the project's own tests that reach them: packages\/invoice\/src\/invoice\.ts/);
    // A change to the library reaches both packages' tests, each run with its own runner: node:test in the library, vitest in the app.
    const projectTests = state.gates.find((g) => g.gate === 'projectTests')!.evidence;
    assert.deepEqual(projectTests?.kind === 'projectTests' && projectTests.files, [
      'packages/invoice/test/invoice.test.ts',
      'packages/money/test/money.test.ts',
    ]);
    // The library's project and the app's, which depends on it.
    assert.match(state.gates[0]!.detail, /^packages\/money\/tsconfig\.json: .*; packages\/invoice\/tsconfig\.json: .*: clean$/);
    assert.deepEqual([callsOf(state, 'coder'), callsOf(state, 'debugger')], [2, 1]);
    assert.equal(read('packages/invoice/src/invoice.ts'), answer('MONO-2', 'invoice.ts'));
  });

  it("MONO-3 (MONO-2's change) with no language service to see the app: the type-check gate fails the run, the app's error counted as the change's (never unrelated, never pre-existing), and its repair is given that error", async () => {
    // The per-attempt check is what routes MONO-2; without it the run reaches the gates with
    // every test green, and only the type-check of the packages that depend on the library
    // stands between the broken app and a "passed".
    const { state } = await runTicket(ws.root, 'MONO-3', {
      gates: { enabled: ['typecheck'] },
      patch: (deps) => void (deps.diagnostics = undefined),
    });
    assert.deepEqual([state.status, state.finished?.reason.kind], ['failed', 'gateFailed']);
    assert.equal(state.attempts[0]?.tests?.status, 'passed');
    assert.deepEqual(gateRuns(state), ['typecheck:failed']);
    for (const gate of state.gates) {
      assert.ok(gate.evidence?.kind === 'typecheck');
      assert.deepEqual(
        gate.evidence.diagnostics.map((d) => [d.file, d.line, d.code, d.message]),
        [APP_ERROR],
      );
      assert.deepEqual([gate.evidence.unrelated, gate.evidence.preExisting], [[], []]);
      assert.match(gate.detail, /^packages\/money\/tsconfig\.json: .*; packages\/invoice\/tsconfig\.json: .*: 1 error the change reaches$/);
    }
    // The repair's prompt quoted the app's error (the script's promptIncludes checks it); it can
    // write only the library and sent the same change, so the gate's failure stands.
    const [repair] = state.repairs;
    assert.deepEqual(
      [repair?.gate, repair?.ok, repair?.stage, repair?.complaints],
      ['typecheck', false, 'write', ['packages/invoice/src/invoice.ts:15:36 TS2554: Expected 1 arguments, but got 2.']],
    );
    assert.equal(callsOf(state, 'coder'), 2);
  });
});
