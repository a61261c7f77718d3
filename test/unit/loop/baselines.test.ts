import assert from 'node:assert/strict';
import { startRun } from '../../../src/core';
import type { TestRunRequest } from '../../../src/core/ports/checks';
import type { LintProblem, TestRunResult } from '../../../src/core/schema/checks';
import { fakeDeps, scripted, ticketPathOf, type FakeRig } from '../../fakes/fakeDeps';
import { eventsOf, ofType, typesOf } from './loopRig';

/**
 * The two baselines of a run (the project's findings, what its own tests do) are measured side
 * by side and recorded in one order; when the project's tests touched the workspace, the
 * findings are measured again after them. Through startRun on the fakes.
 */

const isBaselineRun = (r: TestRunRequest) => !r.files.some((f) => f.startsWith('test/ticket/'));

/** A promise with its resolver, and a race that names what it waited for. */
function gate(): { open: () => void; opened: Promise<void> } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}
const within = <T>(p: Promise<T>, what: string): Promise<T> =>
  Promise.race([
    p,
    new Promise<T>((_, reject) =>
      setTimeout(() => reject(new Error(`${what} never happened: the baselines ran one after the other`)), 2000),
    ),
  ]);

/** Wraps the rig's first-write-free checks: the scope check and the project's test runs. */
function watch(
  rig: FakeRig,
  o: { duringCheck?: () => Promise<void>; duringBaselineTests?: () => Promise<void>; effects?: TestRunResult['sideEffects'] },
) {
  const seen = { checks: 0, checksBeforeTestsEnded: 0, baselineTestsEnded: false };
  const diagnostics = rig.deps.diagnostics!;
  const check = diagnostics.check.bind(diagnostics);
  diagnostics.check = async (files, signal) => {
    seen.checks++;
    if (!seen.baselineTestsEnded) seen.checksBeforeTestsEnded++;
    await o.duringCheck?.();
    return check(files, signal);
  };
  const tests = rig.deps.tests;
  const run = tests.run.bind(tests);
  tests.run = async (request, signal) => {
    if (!isBaselineRun(request)) return run(request, signal);
    await o.duringBaselineTests?.();
    const r = await run(request, signal);
    seen.baselineTestsEnded = true;
    return o.effects ? { ...r, sideEffects: o.effects } : r;
  };
  return seen;
}

async function run(rig: FakeRig, signal = new AbortController().signal) {
  const r = await startRun(rig.deps, { ticketPath: ticketPathOf('BLOG-1'), signal });
  return { ...r, events: await eventsOf(rig, r.runId) };
}

describe('pure: the baselines before the first write', () => {
  it('the findings and the project tests are measured side by side: each starts before the other ends', async () => {
    const rig = fakeDeps('blog-api', scripted('blog-api', 'BLOG-1'));
    const checkStarted = gate();
    const testsStarted = gate();
    watch(rig, {
      // Each waits until the other has started: one after the other, neither could go on.
      duringCheck: async () => {
        checkStarted.open();
        await within(testsStarted.opened, "the project tests' baseline starting during the check");
      },
      duringBaselineTests: async () => {
        testsStarted.open();
        await within(checkStarted.opened, 'the baseline check starting during the project tests');
      },
    });
    const { state, events } = await run(rig);
    assert.equal(state.status, 'passed', JSON.stringify(state.finished));
    assert.equal(ofType(events, 'baseline.recorded').length, 1);
    assert.equal(ofType(events, 'projectTests.baseline').length, 1);
  });

  it('they are recorded in one order whichever ends first, both before the first write', async () => {
    const rig = fakeDeps('blog-api', scripted('blog-api', 'BLOG-1'));
    const testsEnded = gate();
    // The tests end first; the check waits for them.
    watch(rig, { duringCheck: () => testsEnded.opened, duringBaselineTests: () => Promise.resolve(testsEnded.open()) });
    const { events } = await run(rig);
    const types = typesOf(events);
    const at = (t: string) => types.indexOf(t as (typeof types)[number]);
    assert.ok(at('baseline.recorded') >= 0 && at('baseline.recorded') < at('projectTests.baseline'), types.join(' '));
    assert.ok(at('projectTests.baseline') < at('files.written'), 'both before the first write');
  });

  it('project tests that touched the workspace: the findings are measured again after them, and that measure is recorded', async () => {
    const rig = fakeDeps('blog-api', scripted('blog-api', 'BLOG-1'));
    const seen = watch(rig, { effects: [{ path: 'src/tmp-written-by-a-test.ts', change: 'created', restored: true }] });
    const { events } = await run(rig);
    const baselineChecks = seen.checks - ofType(events, 'check.diagnosed').length;
    assert.equal(baselineChecks, 2, 'the scope was checked once beside the tests and once after them');
    assert.ok(seen.checks > seen.checksBeforeTestsEnded, 'a check ran after the tests ended');
    assert.equal(ofType(events, 'baseline.recorded').length, 1, 'one baseline is recorded: the later one');
  });

  it('project tests that wrote nothing: the findings are measured once', async () => {
    const rig = fakeDeps('blog-api', scripted('blog-api', 'BLOG-1'));
    const seen = watch(rig, {});
    const { events } = await run(rig);
    assert.equal(seen.checks - ofType(events, 'check.diagnosed').length, 1);
  });

  it("an importer's lint error from before the run is in the baseline; the same rule and message planted in the changed file is a new finding", async () => {
    // The linter stands in for one that found a problem in an importer before the run (blog-api has no ESLint config).
    const problem = (file: string): LintProblem => ({
      file,
      line: 3,
      column: 1,
      rule: 'no-unused-vars',
      severity: 'error',
      message: "'unused' is defined but never used.",
    });
    const play = async (planted: boolean) => {
      const rig = fakeDeps('blog-api', scripted('blog-api', 'BLOG-1'));
      let importer: string | undefined;
      const diagnostics = rig.deps.diagnostics!;
      const check = diagnostics.check.bind(diagnostics);
      diagnostics.check = async (files, signal) => {
        const r = await check(files, signal);
        importer ??= r.checkedFiles.find((f) => f !== 'src/handlers/posts.ts');
        return r;
      };
      let written = false;
      const write = rig.deps.workspace.writeFile.bind(rig.deps.workspace);
      rig.deps.workspace.writeFile = (path, content) => {
        if (path === 'src/handlers/posts.ts') written = true;
        return write(path, content);
      };
      rig.deps.lint = {
        lint: (files) => {
          const problems = [
            ...files.filter((f) => f === importer).map(problem),
            // The Coder's answer brings the importer's finding, word for word, into the file it changed.
            ...(planted && written ? files.filter((f) => f === 'src/handlers/posts.ts').map(problem) : []),
          ];
          return Promise.resolve({ status: problems.length ? 'failed' : 'passed', problems });
        },
      };
      const r = await run(rig);
      return { ...r, importer: importer! };
    };
    const clean = await play(false);
    assert.equal(clean.state.status, 'passed', JSON.stringify(clean.state.finished));
    assert.deepEqual(ofType(clean.events, 'baseline.recorded')[0]!.lint, [problem(clean.importer)]);
    for (const e of ofType(clean.events, 'check.linted')) assert.deepEqual([e.status, e.problems], ['passed', []]);
    const planted = await play(true);
    assert.notEqual(planted.state.status, 'passed', 'a planted copy of an old finding is a new finding');
    const linted = ofType(planted.events, 'check.linted');
    assert.ok(linted.length > 0);
    for (const e of linted) {
      assert.deepEqual([e.status, e.problems], ['failed', [problem('src/handlers/posts.ts')]]);
      assert.ok(!e.preExisting.some((p) => p.file === 'src/handlers/posts.ts'), 'never counted as there before');
    }
  });

  it('a cancel during the baselines ends the run cancelled, even when the checker stopped mid-question fails in its own words', async () => {
    const rig = fakeDeps('blog-api', scripted('blog-api', 'BLOG-1'));
    const cancel = new AbortController();
    const testsStarted = gate();
    watch(rig, {
      duringCheck: async () => {
        await testsStarted.opened;
        cancel.abort();
        throw new Error('the language service worker is gone');
      },
      duringBaselineTests: () => Promise.resolve(testsStarted.open()),
    });
    const { state } = await run(rig, cancel.signal);
    assert.equal(state.status, 'cancelled', JSON.stringify(state.finished));
  });

  it('a baseline that fails stops the run after the other settled, and nothing of either is recorded', async () => {
    const rig = fakeDeps('blog-api', scripted('blog-api', 'BLOG-1'));
    let testsSettled = false;
    watch(rig, {
      duringCheck: () => Promise.reject(new Error('the checker broke')),
      duringBaselineTests: async () => {
        await new Promise((resolve) => setTimeout(resolve, 20));
        testsSettled = true;
      },
    });
    const { state, events } = await run(rig);
    assert.equal(state.status, 'error', JSON.stringify(state.finished));
    assert.ok(testsSettled, 'the project tests ended before the run stopped');
    assert.deepEqual([ofType(events, 'baseline.recorded').length, ofType(events, 'projectTests.baseline').length], [0, 0]);
  });
});
