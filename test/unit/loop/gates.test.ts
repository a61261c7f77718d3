import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { RunState } from '../../../src/core/run/reducer';
import { formatRunReport } from '../../../src/core/run/views/report';
import { verdictLines, verdictText } from '../../../src/core/run/views/verdict';
import type { PipelineDeps } from '../../../src/core/stages/common/context';
import { DEFAULT_GATES, type GateSettings } from '../../../src/core/stages/common/gateConfig';
import { FIXTURES } from '../../fakes/memoryWorkspace';
import { callsOf, decide, pureRun, type PureRun } from './loopRig';

/**
 * The end-of-ticket gates through the core's startRun, on the fakes: the gates' own ports (the
 * project-wide type-check, coverage, the build) answer as the real ones did (recorded), the
 * reviewers as the script says. A repair kept and the real tools' side of the gates (a
 * suppression planted by a repair, tsc's own errors) stay in test/runs/scenarios/gates.test.ts.
 */

// The whole suite, as the project tests' runs were recorded: these runs are about the gates' repair.
const GATES: GateSettings = { enabled: DEFAULT_GATES, projectTests: 'all' };
const answer = (id: string, file: string) => readFileSync(path.join(FIXTURES, 'blog-api', '.tickets', 'answers', id, file), 'utf8');
const read = (run: PureRun, file: string) => run.rig.world.workspace.readFile(file);
const gateRuns = (s: RunState): string[] => s.gates.map((g) => `${g.gate}:${g.status}${g.afterRepairOf ? `@${g.afterRepairOf}` : ''}`);

describe('pure: the end-of-ticket gates and their one repair', () => {
  it('BLOG-7: a repair that fails its mini regression is put back, and the run ends as the review failed', async () => {
    const run = await pureRun('BLOG-7', { gates: GATES });
    const { state } = run;
    assert.equal(state.status, 'failed');
    assert.deepEqual(state.finished?.reason, { kind: 'gateFailed', gate: 'implementationReview' });
    assert.deepEqual(gateRuns(state), [
      'typecheck:passed',
      'lint:skipped',
      'build:skipped',
      'projectTests:passed',
      'implementationReview:failed',
    ]);
    const review = state.gates[4]!.evidence;
    assert.ok(review?.kind === 'implementationReview' && review.blockers[0]?.file === 'src/handlers/posts.ts');
    const [repair] = state.repairs;
    assert.deepEqual([repair?.gate, repair?.ok, repair?.stage, repair?.reverted], ['implementationReview', false, 'regression', true]);
    assert.equal(repair?.regression?.required.length, 2);
    assert.deepEqual(
      repair?.regression?.failed.map((n) => n.replace(/^.* > /, '')),
      ['[AC2] keeps the default page without perPage'],
    );
    assert.match(repair?.complaints?.[0] ?? '', /perPage=Infinity is not NaN/);
    // The verdict stands: no second review of a repair that was put back.
    assert.deepEqual([callsOf(state, 'coder'), callsOf(state, 'reviewer')], [2, 1]);
    assert.equal(await read(run, 'src/handlers/posts.ts'), answer('BLOG-7', 'attempt1.ts'));
  });

  it('BLOG-8: an error thrown inside the repair path ends the run as the type-check failed, with the error on record', async () => {
    const run = await pureRun('BLOG-8', { gates: GATES });
    const { state } = run;
    assert.equal(state.status, 'failed');
    assert.deepEqual(state.finished?.reason, { kind: 'gateFailed', gate: 'typecheck' });
    assert.deepEqual(gateRuns(state), ['typecheck:failed']);
    const [repair] = state.repairs;
    assert.deepEqual([repair?.ok, repair?.stage, repair?.error?.name, repair?.reverted], [false, 'model', 'RunStop', false]);
    assert.match(repair?.error?.message ?? '', /coder model failed: scripted model: recorded transport failure/);
    assert.match(repair?.complaints?.[0] ?? '', /^src\/reports\/digest\.ts:5:56 TS2345/);
    assert.equal(await read(run, 'src/format/postSummary.ts'), answer('BLOG-8', 'attempt1.ts'));
  });

  it('fail-safe: a port that throws mid-repair (after a write) ends the run the same way, with the files put back', async () => {
    let gatesStarted = false;
    const run = await pureRun('BLOG-6', {
      gates: GATES,
      patch: (deps: PipelineDeps) => {
        const tests = deps.tests;
        let testRuns = 0;
        deps.onEvent = (e) => {
          if (e.type === 'gate.ran') gatesStarted = true;
        };
        // The repair's mini regression is the first test run once the gates have started: through the
        // test runner, or through the coverage runner where the run that judges the tests measures them.
        const fallsOver = () => gatesStarted && ++testRuns === 1;
        deps.tests = {
          run: (request, signal) => (fallsOver() ? Promise.reject(new TypeError('the test runner fell over')) : tests.run(request, signal)),
        };
        const coverage = deps.gates!.coverage!;
        const measure = coverage.run.bind(coverage);
        deps.gates = {
          ...deps.gates!,
          coverage: {
            run: (request, signal) => (fallsOver() ? Promise.reject(new TypeError('the test runner fell over')) : measure(request, signal)),
            measuresAsItRuns: (f) => coverage.measuresAsItRuns?.(f) ?? false,
          },
        };
      },
    });
    const { state } = run;
    assert.ok(gatesStarted, 'the gates ran');
    assert.equal(state.status, 'failed');
    assert.deepEqual(state.finished?.reason, { kind: 'gateFailed', gate: 'typecheck' });
    const [repair] = state.repairs;
    assert.deepEqual(
      [repair?.ok, repair?.stage, repair?.error, repair?.reverted],
      [false, 'regression', { name: 'TypeError', message: 'the test runner fell over' }, true],
    );
    assert.equal(await read(run, 'src/format/postSummary.ts'), answer('BLOG-6', 'attempt1.ts'));
  });

  it('gates fail closed: a gate whose tool throws ends the run failed with the gate as an error; made optional, the run passes and says it was not judged', async () => {
    const gates = (optional: 'typecheck'[]): GateSettings => ({ enabled: [...DEFAULT_GATES, 'build'], buildCommand: 'exit 0', optional });
    const throwing = (deps: PipelineDeps) => {
      deps.gates = { ...deps.gates!, typecheck: { check: () => Promise.reject(new Error('tsc vanished')) } };
    };
    const closed = await pureRun('BLOG-5', { gates: gates([]), patch: throwing });
    assert.equal(closed.state.status, 'failed');
    assert.deepEqual(closed.state.finished?.reason, {
      kind: 'gateError',
      gate: 'typecheck',
      message: 'the gate could not run: Error: tsc vanished',
    });
    assert.deepEqual(gateRuns(closed.state), ['typecheck:error']);
    assert.deepEqual(closed.state.repairs, []);

    const { state } = await pureRun('BLOG-5', { gates: gates(['typecheck']), patch: throwing });
    assert.equal(state.status, 'passed');
    assert.deepEqual(gateRuns(state), [
      'typecheck:error',
      'lint:skipped',
      'build:passed',
      'projectTests:passed',
      'implementationReview:passed',
      'testReview:passed',
      'coverage:passed',
    ]);
    assert.deepEqual(state.notJudged, [{ gate: 'typecheck', detail: 'the gate could not run: Error: tsc vanished' }]);
    assert.match(formatRunReport(state).split('\n')[0]!, /NOT JUDGED: typecheck/);
  });

  describe("BLOG-9: the Test Reviewer's corrected plan is validated and goes to the operator", () => {
    const waiting = async () => {
      const first = await pureRun('BLOG-9', { gates: GATES });
      const s1 = first.state;
      assert.equal(s1.status, 'needsOperator');
      assert.deepEqual(gateRuns(s1), [
        'typecheck:passed',
        'lint:skipped',
        'build:skipped',
        'projectTests:passed',
        'implementationReview:passed',
        'testReview:failed',
      ]);
      const req = s1.corrections[0]!.request;
      assert.deepEqual([req.target, req.fact.kind, req.proposal.kind], ['testPlan', 'criterionNotCovered', 'testPlan']);
      assert.match(req.fact.detail, /AC2/);
      assert.deepEqual(s1.finished?.reason, { kind: 'correctionRequested', requestId: req.id, route: 'test' });
      assert.match((await read(first, 'test/ticket/BLOG-9.test.ts')) ?? '', /id: '42'/);
      return first;
    };

    it('accepted, it is re-rendered and the run resumes from the tests and passes, with no new Coder attempt', async () => {
      const first = await waiting();
      const s1 = first.state;
      const run = await decide(first, 'accept');
      const { state } = run;
      assert.equal(state.status, 'passed', JSON.stringify(state.finished));
      assert.deepEqual(
        state.resumes.map((r) => r.from),
        ['tests'],
      );
      const rendered = (await read(run, 'test/ticket/BLOG-9.test.ts')) ?? '';
      assert.match(rendered, /id: '9999'/);
      assert.doesNotMatch(rendered, /id: '42'/);
      assert.deepEqual(gateRuns(state).slice(6), [
        'typecheck:passed',
        'lint:skipped',
        'build:skipped',
        'projectTests:passed',
        'implementationReview:passed',
        'testReview:passed',
        'coverage:passed',
      ]);
      // The same code passed the corrected tests, as a recheck that keeps attempt 1's own result
      // on record; the unchanged code was not reviewed twice.
      assert.deepEqual(
        [state.attempts.length, callsOf(state, 'coder'), callsOf(state, 'reviewer'), callsOf(state, 'testReviewer')],
        [2, 1, 1, 2],
      );
      assert.deepEqual(
        state.attempts.map((a) => [a.n, a.status, a.files.length]),
        [
          [1, 'passed', 1],
          [2, 'passed', 0],
        ],
      );
      assert.match(state.attempts[1]?.recheck ?? '', /the operator accepted a corrected test plan/);
      assert.deepEqual(state.attempts[0]?.tests, s1.attempts[0]?.tests, "the first attempt's result is never overwritten");
      assert.equal(state.attempts[1]?.tests?.cases.find((c) => c.name.includes('missing post'))?.status, 'passed');
    });

    it('rejected, the run ends with the request on record and the plan as it was', async () => {
      const first = await waiting();
      const req = first.state.corrections[0]!.request;
      const run = await decide(first, 'reject', { reason: 'post 42 is the case we care about' });
      const { state } = run;
      assert.equal(state.status, 'failed');
      assert.deepEqual(state.finished?.reason, {
        kind: 'correctionRejected',
        requestId: req.id,
        reason: 'post 42 is the case we care about',
      });
      assert.deepEqual([state.corrections[0]?.status, state.corrections[0]?.request.proposal.kind], ['rejected', 'testPlan']);
      assert.match((await read(run, 'test/ticket/BLOG-9.test.ts')) ?? '', /id: '42'/);
      // BLOG-9 turns generalize off: its verdict says that nothing was held out.
      assert.ok(
        verdictLines(state).map(verdictText).includes('Held-out cases: none — the ticket turned generalize off, so nothing was held out'),
      );
    });
  });
});
