import assert from 'node:assert/strict';
import type { TestRunRequest } from '../../../src/core/ports/checks';
import type { CoveragePort, CoverageResult } from '../../../src/core/ports/gates';
import type { TestRunResult } from '../../../src/core/schema/checks';
import type { RunEvent } from '../../../src/core/schema/events';
import type { RunContext } from '../../../src/core/stages/common/context';
import { judgedCoverage, judgingTestRun } from '../../../src/core/stages/checks/judgedCoverage';

/**
 * The run that judges an attempt measures coverage when the runner does so as it runs, and the
 * coverage gate uses that measure only while the code it measured is still the code.
 */

const request: TestRunRequest = { framework: 'node:test', files: ['test/ticket/T-1.test.ts'], timeoutMs: 10_000 };
const passed = (by: string): TestRunResult => ({
  status: 'passed',
  framework: 'node:test',
  command: [by],
  passed: 1,
  failed: 0,
  skipped: 0,
  durationMs: 5,
  cases: [],
  output: by,
});

function rig(o: { gateOn?: boolean; asItRuns?: boolean; noTests?: boolean } = {}) {
  const calls = { tests: 0, coverage: 0 };
  const coverage: CoveragePort = {
    run: (r): Promise<CoverageResult> => {
      calls.coverage++;
      return Promise.resolve(
        o.noTests
          ? { status: 'unavailable', files: [] }
          : {
              status: 'measured',
              source: 'v8',
              tests: passed('measured run'),
              files: r.measure.map((file) => ({ file, lines: [[1, 1]] })),
            },
      );
    },
    measuresAsItRuns: () => o.asItRuns ?? true,
  };
  const events: RunEvent[] = [];
  const ctx = {
    deps: {
      tests: { run: () => (calls.tests++, Promise.resolve(passed('plain run'))) },
      workspace: { readFile: () => Promise.resolve('') },
      gates: { enabled: o.gateOn === false ? ['typecheck'] : ['coverage'], coverage },
    },
    log: { events, getBlob: () => Promise.resolve('') },
    manifest: { testFiles: request.files },
    signal: new AbortController().signal,
  } as unknown as RunContext;
  return { ctx, calls, events };
}

const written = { type: 'files.written', attempt: 2, by: 'repair', files: [] } as unknown as RunEvent;

describe('pure: coverage measured by the run that judges the tests', () => {
  it('measures in the judging run when the runner measures as it runs; the gate then reads that measure', async () => {
    const { ctx, calls } = rig();
    const r = await judgingTestRun(ctx, request);
    assert.equal(r.output, 'measured run', "the attempt's result is the measured run's");
    assert.deepEqual(calls, { tests: 0, coverage: 1 }, 'one test run, which measured');
    assert.equal((await judgedCoverage(ctx, []))?.tests?.output, 'measured run');
  });

  it('a write after the judging run (a repair, a put-back) or a changed oracle: the gate measures afresh', async () => {
    for (const later of [written, { type: 'oracle.tampered', attempt: 1, at: 'afterTests', files: [] } as unknown as RunEvent]) {
      const { ctx, events } = rig();
      await judgingTestRun(ctx, request);
      events.push(later);
      assert.equal(judgedCoverage(ctx, []), undefined, `after ${later.type}`);
    }
  });

  it('other files to measure than the judging run measured: the gate measures afresh', async () => {
    const { ctx } = rig();
    await judgingTestRun(ctx, request);
    assert.equal(judgedCoverage(ctx, ['src/other.ts']), undefined);
  });

  it('without the coverage gate, or with a runner whose coverage instruments the code, the tests run as ever and nothing is kept', async () => {
    for (const o of [{ gateOn: false }, { asItRuns: false }]) {
      const { ctx, calls } = rig(o);
      assert.equal((await judgingTestRun(ctx, request)).output, 'plain run');
      assert.deepEqual(calls, { tests: 1, coverage: 0 }, JSON.stringify(o));
      assert.equal(judgedCoverage(ctx, []), undefined);
    }
  });

  it('a measure with no test run behind it: the tests run as ever, and a later gate measures afresh', async () => {
    const { ctx, calls } = rig({ noTests: true });
    assert.equal((await judgingTestRun(ctx, request)).output, 'plain run');
    assert.deepEqual(calls, { tests: 1, coverage: 1 });
    assert.equal(judgedCoverage(ctx, []), undefined);
  });

  it("a port that reads its measure after the tests: the attempt's result comes back first, and the gate waits for the measure", async () => {
    const { ctx, calls } = rig();
    let read: (r: CoverageResult) => void = () => undefined;
    const coverage = ctx.deps.gates!.coverage!;
    coverage.measuredRun = () => {
      calls.coverage++;
      const tests = passed('measured run');
      return Promise.resolve({ tests, coverage: new Promise<CoverageResult>((resolve) => (read = resolve)) });
    };
    // Resolves although the measure is still being read: the next check need not wait for it.
    const r = await judgingTestRun(ctx, request);
    assert.equal(r.output, 'measured run');
    assert.deepEqual(calls, { tests: 0, coverage: 1 });
    let settled = false;
    const gate = judgedCoverage(ctx, [])!.then((m) => ((settled = true), m));
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(settled, false, 'the gate waits while the measure is read');
    read({ status: 'measured', source: 'v8', tests: r, files: [{ file: 'src/a.ts', lines: [[1, 3]] }] });
    assert.deepEqual((await gate).files, [{ file: 'src/a.ts', lines: [[1, 3]] }]);
  });

  it('a port whose measure rejects breaks its word: the gate gets an error measure, never a crash', async () => {
    const { ctx } = rig();
    ctx.deps.gates!.coverage!.measuredRun = () =>
      Promise.resolve({ tests: passed('measured run'), coverage: Promise.reject(new Error('the reader fell over')) });
    await judgingTestRun(ctx, request);
    const m = await judgedCoverage(ctx, []);
    assert.equal(m?.status, 'error');
    assert.equal(m?.detail, 'the reader fell over');
    assert.equal(m?.tests?.output, 'measured run');
  });

  it('a later judging run that cannot measure forgets the earlier measure', async () => {
    const { ctx } = rig();
    await judgingTestRun(ctx, request);
    const coverage = ctx.deps.gates!.coverage!;
    coverage.measuresAsItRuns = () => false;
    await judgingTestRun(ctx, request);
    assert.equal(judgedCoverage(ctx, []), undefined);
  });
});
