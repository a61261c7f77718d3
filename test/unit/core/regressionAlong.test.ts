import assert from 'node:assert/strict';
import type { TestRunRequest } from '../../../src/core/ports/checks';
import type { TestCaseResult, TestRunResult } from '../../../src/core/schema/checks';
import type { RunEvent } from '../../../src/core/schema/events';
import type { RunContext } from '../../../src/core/stages/common/context';
import { ALONG_LIMIT_MS, attemptRegression, filesAlong, gateRegression } from '../../../src/core/stages/checks/attemptRegression';
import { MemoryWorkspace } from '../../fakes/memoryWorkspace';
import { aTestRun } from '../../support/aTestRun';

/**
 * The projectTests gate's other files run in the attempt's command when the project's suite is
 * quick: one command instead of two. The attempt is still judged on the tests that reach its
 * change alone, and the gate on its files (here the whole suite), taking the attempt's results.
 */

const REACHING = ['test/posts.test.ts'];
const OTHERS = ['test/markup.test.ts', 'test/pagination.test.ts'];
const ALL = [...OTHERS, ...REACHING].sort();

const testCase = (file: string, status: TestCaseResult['status']): TestCaseResult => ({
  name: `${file} case`,
  file,
  status,
  durationMs: 1,
});

function rig(o: { suiteMs?: number; gate?: boolean; failing?: string[]; sideEffects?: boolean } = {}) {
  const runs: string[][] = [];
  const workspace = new MemoryWorkspace(new Map([['package.json', '{"name":"p"}'], ...ALL.map((f) => [f, 'export {};\n'] as const)]));
  const baseline = {
    type: 'projectTests.baseline',
    files: ALL,
    status: 'passed',
    failing: [],
    passing: ALL.map((f) => `${f} › ${f} case`),
    durationMs: o.suiteMs ?? 800,
  } as unknown as RunEvent;
  const ctx = {
    deps: {
      workspace,
      tests: {
        run: (r: TestRunRequest): Promise<TestRunResult> => {
          runs.push([...r.files]);
          const cases = r.files.map((f) => testCase(f, o.failing?.includes(f) ? 'failed' : 'passed'));
          const effects = o.sideEffects
            ? { status: 'failed' as const, sideEffects: [{ path: '.git/hooks/pre-commit', change: 'created' as const, restored: true }] }
            : {};
          return Promise.resolve(aTestRun(cases, effects));
        },
      },
      // The whole suite: the gate's files beyond the attempt's (those that reach the change, the same ones by default).
      gates: { enabled: o.gate === false ? ['typecheck'] : ['projectTests'], projectTests: 'all' },
    },
    log: { events: [baseline] },
    manifest: { testFiles: ['test/ticket/T-1.test.ts'], heldOut: { generalize: true, files: [] }, runner: { framework: 'node:test' } },
    signal: new AbortController().signal,
  } as unknown as RunContext;
  return { ctx, runs };
}

describe("pure: the gate's project test files run along with the attempt's when the suite is quick", () => {
  it('one command for all the files; the attempt is judged on its own files, and the gate takes every result without a run of its own', async () => {
    const { ctx, runs } = rig({ failing: ['test/markup.test.ts'] });
    const along = await filesAlong(ctx, REACHING);
    assert.deepEqual(along, OTHERS);
    const attempt = await attemptRegression(ctx, 1, REACHING, along);
    assert.deepEqual(runs, [[...REACHING, ...OTHERS]]);
    assert.deepEqual(attempt.files, REACHING);
    assert.deepEqual(attempt.newlyFailing, [], "another file's failure is not the attempt's");
    assert.equal(attempt.result?.status, 'passed');
    assert.deepEqual(
      attempt.result?.cases.map((c) => c.file),
      REACHING,
    );
    const gate = await gateRegression(ctx, ALL);
    assert.equal(runs.length, 1, 'the gate ran nothing');
    assert.deepEqual(gate.newlyFailing, ['test/markup.test.ts › test/markup.test.ts case']);
    assert.deepEqual(gate.reused?.files.sort(), ALL);
  });

  it("the attempt's own failing file still fails it", async () => {
    const { ctx } = rig({ failing: ['test/posts.test.ts', 'test/markup.test.ts'] });
    const attempt = await attemptRegression(ctx, 1, REACHING, await filesAlong(ctx, REACHING));
    assert.deepEqual(attempt.newlyFailing, ['test/posts.test.ts › test/posts.test.ts case']);
    assert.equal(attempt.result?.status, 'failed');
  });

  it('hostile: a run that failed for no case (what it wrote outside the workspace) fails the attempt, whichever file did it', async () => {
    const { ctx } = rig({ sideEffects: true });
    const attempt = await attemptRegression(ctx, 1, REACHING, await filesAlong(ctx, REACHING));
    assert.equal(attempt.result?.status, 'failed');
    assert.ok(
      attempt.newlyFailing.some((k) => k.startsWith('test/posts.test.ts › ')),
      attempt.newlyFailing.join('; '),
    );
  });

  it(`a suite that took more than ${ALONG_LIMIT_MS} ms before the run, or no projectTests gate: nothing runs along`, async () => {
    for (const o of [{ suiteMs: ALONG_LIMIT_MS + 1 }, { gate: false }]) {
      const { ctx, runs } = rig(o);
      const along = await filesAlong(ctx, REACHING);
      assert.deepEqual(along, [], JSON.stringify(o));
      await attemptRegression(ctx, 1, REACHING, along);
      assert.deepEqual(runs, [REACHING]);
    }
  });
});
