import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { TestCaseResult, TestRunResult } from '../../../src/core/schema/checks';
import type { TestFramework } from '../../../src/core/schema/testPlan';
import type { RenderOptions } from '../../../src/core/stages/materializer';
import { ProcessTestRunner } from '../../../src/node/testRunners/testRunner';
import { copyFixture, FIXTURES, FRAMEWORK_DIR, loadPlan, makeTempDir, REPO_ROOT, writeRendered } from '../../support/materializerFixtures';

const RUN_TIMEOUT_MS = 60_000;
const SEED = 1_234_567;

/** Appended to the code under test: it sets the seed's variable and the global the rendered test reads. */
const HOSTILE_SEED = `
process.env.TICKET_RUNNER_PROPERTY_SEED = '1';
Reflect.defineProperty(globalThis, Symbol.for('ticket-runner.property-seed'), { value: 1 });
Reflect.set(globalThis, Symbol.for('ticket-runner.property-seed'), 1);
`;

interface PropertyRun {
  framework: TestFramework;
  options: RenderOptions;
  /** The workspace has fast-check of its own; without it, the tests load Ticket Runner's copy (vitest's too). */
  ownFastCheck: boolean;
}

// Each fixture's properties.json: a property its code holds (AC1), and one it breaks (AC2).
const RUNS: PropertyRun[] = [
  { framework: 'node:test', options: { language: 'ts', moduleKind: 'esm' }, ownFastCheck: false },
  { framework: 'vitest', options: { language: 'ts', moduleKind: 'esm' }, ownFastCheck: false },
  { framework: 'jest', options: { language: 'js', moduleKind: 'cjs' }, ownFastCheck: false },
  { framework: 'mocha', options: { language: 'js', moduleKind: 'esm' }, ownFastCheck: false },
];

function caseOf(result: TestRunResult, criterion: string): TestCaseResult {
  const found = result.cases.find((c) => c.name.includes(`[${criterion}]`));
  assert.ok(found, `no case for ${criterion} in ${JSON.stringify(result.cases.map((c) => c.name))}\n${result.output}`);
  return found;
}

describe('materializer: rendered properties run with fast-check in the real frameworks', function () {
  this.timeout(3 * RUN_TIMEOUT_MS);
  const dirs: string[] = [];

  after(() => {
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  /** A copy of the fixture with its properties rendered, and the product's runner over it. */
  function workspace(run: PropertyRun): { runner: ProcessTestRunner; files: string[] } {
    const dir = makeTempDir(`${FRAMEWORK_DIR[run.framework]}-properties`);
    dirs.push(dir);
    copyFixture(run.framework, dir, 'correct');
    // The code under test tries to choose the inputs it is judged on: too late, the seed is pinned.
    const index = fs.readdirSync(path.join(dir, 'src')).find((f) => f.startsWith('index.'))!;
    fs.appendFileSync(path.join(dir, 'src', index), HOSTILE_SEED);
    if (run.ownFastCheck) {
      fs.mkdirSync(path.join(dir, 'node_modules'));
      fs.symlinkSync(path.join(REPO_ROOT, 'node_modules', 'fast-check'), path.join(dir, 'node_modules', 'fast-check'), 'junction');
    }
    const files = writeRendered(
      dir,
      loadPlan(path.join(FIXTURES, FRAMEWORK_DIR[run.framework], 'properties.json')),
      run.framework,
      run.options,
    );
    const runner = new ProcessTestRunner({
      root: dir,
      nodeTestReporter: path.join(REPO_ROOT, 'dist', 'nodeTestReporter.mjs'),
      fallbackDir: REPO_ROOT,
      nodePath: process.execPath,
    });
    return { runner, files };
  }

  for (const run of RUNS) {
    it(`${run.framework}: a property that holds passes; one that breaks fails with the run's seed, whatever the code under test sets, and its shrunk counterexample, the same for the same seed`, async () => {
      const { runner, files } = workspace(run);
      const request = { framework: run.framework, files, timeoutMs: RUN_TIMEOUT_MS, propertySeed: SEED };
      const first = await runner.run(request, new AbortController().signal);
      assert.equal(first.status, 'failed', first.output);
      assert.equal(caseOf(first, 'AC1').status, 'passed', first.output);
      const broken = caseOf(first, 'AC2');
      assert.equal(broken.status, 'failed');
      assert.match(broken.message ?? '', /Property failed after \d+ tests?/);
      assert.match(broken.message ?? '', new RegExp(`seed: ${SEED}\\b`));
      assert.match(broken.message ?? '', /Counterexample: \[.+\]/);
      assert.match(broken.message ?? '', /Shrunk \d+ time/);

      const again = await runner.run(request, new AbortController().signal);
      assert.equal(
        caseOf(again, 'AC2').message,
        broken.message,
        'the same seed draws the same inputs and shrinks to the same counterexample',
      );
      runner.dispose();
    });
  }
});
