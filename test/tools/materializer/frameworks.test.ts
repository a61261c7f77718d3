import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { pathToFileURL } from 'node:url';
import type { RenderOptions } from '../../../src/core/stages/materializer';
import type { TestFramework } from '../../../src/core/schema/testPlan';
import {
  binOf,
  copyFixture,
  fixturePlan,
  makeTempDir,
  REPO_ROOT,
  runNode,
  writeRendered,
  type ProcessResult,
  type Variant,
} from '../../support/materializerFixtures';

const RUN_TIMEOUT_MS = 45_000;

interface FrameworkRun {
  framework: TestFramework;
  options: RenderOptions;
  /** Node arguments that run `files` with the real framework, from the project folder. */
  args(files: string[]): string[];
  /** The runner's count of passed tests, so that a case that silently did not run is noticed. */
  passed: RegExp;
  /** What the run against the wrong implementation prints: the failed case, and expected against actual. */
  failure: RegExp[];
}

// Between them the four projects write TypeScript and JavaScript, as ES modules and as CommonJS.
const RUNS: FrameworkRun[] = [
  {
    framework: 'node:test',
    options: { language: 'ts', moduleKind: 'esm' },
    args: (files) => [
      '--import',
      pathToFileURL(require.resolve('tsx', { paths: [REPO_ROOT] })).href,
      '--test',
      '--test-reporter=tap',
      ...files,
    ],
    passed: /^# pass (\d+)$/m,
    failure: [/\[AC1\] orders versions by number/, /-1 !== 1/],
  },
  {
    framework: 'vitest',
    options: { language: 'ts', moduleKind: 'esm' },
    args: (files) => [binOf('vitest', 'vitest'), 'run', ...files],
    passed: /Tests\s+(\d+) passed/,
    failure: [/\[AC2\] splits a slug into its words/, /expected \[ 'hello-world' \] to deeply equal \[ 'hello', 'world' \]/],
  },
  {
    framework: 'jest',
    options: { language: 'js', moduleKind: 'cjs' },
    args: (files) => [binOf('jest', 'jest'), '--ci', '--no-cache', '--watchman=false', '--runTestsByPath', ...files],
    passed: /Tests:\s+(\d+) passed/,
    failure: [
      /\[AC3\] parses amounts/,
      /Expected pattern: \/not an amount: "ten dollars" \\\(expected \\\$D\\\.CC\\\)\//,
      /Received message: "bad amount"/,
    ],
  },
  {
    framework: 'mocha',
    options: { language: 'js', moduleKind: 'esm' },
    args: (files) => [binOf('mocha', 'mocha'), '--no-config', '--no-package', '--reporter', 'spec', ...files],
    passed: /(\d+) passing/,
    failure: [/\[AC2\] splits seconds into units/, /strictly deep-equal/, /\+\s+m: 90/],
  },
];

const VARIANTS: readonly Variant[] = ['correct', 'wrong'];

interface Outcome {
  result: ProcessResult;
  cases: number;
}

describe('materializer: rendered tests run in the real frameworks', function () {
  this.timeout(RUN_TIMEOUT_MS + 15_000);
  const dirs: string[] = [];
  const outcomes = new Map<string, Promise<Outcome>>();

  async function start(run: FrameworkRun, variant: Variant): Promise<Outcome> {
    const dir = makeTempDir(`${run.framework.replace(':', '-')}-${variant}`);
    dirs.push(dir);
    copyFixture(run.framework, dir, variant);
    const plan = fixturePlan(run.framework);
    const files = writeRendered(dir, plan, run.framework, run.options);
    const result = await runNode(run.args(files), dir, RUN_TIMEOUT_MS);
    return { result, cases: plan.files.reduce((n, file) => n + file.cases.length, 0) };
  }

  function outcome(run: FrameworkRun, variant: Variant): Promise<Outcome> {
    const pending = outcomes.get(`${run.framework}/${variant}`);
    if (pending === undefined) throw new Error(`no run started for ${run.framework}/${variant}`);
    return pending;
  }

  before(() => {
    // All eight runs start together: most of each is process start-up, which overlaps well even on two cores.
    for (const run of RUNS) {
      for (const variant of VARIANTS) {
        const pending = start(run, variant);
        // The test awaits it; this only keeps a failure before then from counting as unhandled.
        pending.catch(() => undefined);
        outcomes.set(`${run.framework}/${variant}`, pending);
      }
    }
  });

  after(() => {
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  for (const run of RUNS) {
    it(`${run.framework}: every case passes against the correct implementation`, async () => {
      const { result, cases } = await outcome(run, 'correct');
      assert.equal(result.timedOut, false, `timed out:\n${result.output}`);
      assert.equal(result.code, 0, result.output);
      assert.equal(run.passed.exec(result.output)?.[1], String(cases), result.output);
    });

    it(`${run.framework}: fails against the wrong implementation, with the assertion's message`, async () => {
      const { result } = await outcome(run, 'wrong');
      assert.equal(result.timedOut, false, `timed out:\n${result.output}`);
      assert.notEqual(result.code, 0, result.output);
      for (const pattern of run.failure) assert.match(result.output, pattern);
    });
  }
});
