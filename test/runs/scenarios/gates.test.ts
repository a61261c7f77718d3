import assert from 'node:assert/strict';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { PipelineDeps } from '../../../src/core/stages/context';
import { DEFAULT_GATES, type GateSettings } from '../../../src/core/stages/gates/config';
import type { RunResult } from '../../../src/core';
import { formatRunReport } from '../../../src/core/run/views/report';
import { callsOf, freshCopyEachTest, gateRuns, resolveRun, runTicket } from '../../support/scenario';
import { copyFixture, FIXTURE } from '../../support/tempWorkspace';

/**
 * The end-of-ticket gates, end to end on temp copies of the blog-api fixture, with the real
 * tools (tsc, the TypeScript language service, Tree-sitter, node:test with V8 coverage) and
 * the scripted model. Each fixture ticket BLOG-6 to BLOG-9 is one shape of the gates' story.
 */

const GATES: GateSettings = { enabled: DEFAULT_GATES };
const answer = (id: string, file: string) => readFileSync(path.join(FIXTURE, '.tickets', 'answers', id, file), 'utf8');

const run = (root: string, id: string, patch?: (deps: PipelineDeps) => void): Promise<RunResult> => runTicket(root, id, { gates: GATES, patch });
const resolve = (root: string, r: RunResult, decision: 'accept' | 'reject', reason?: string, patch?: (deps: PipelineDeps) => void): Promise<RunResult> =>
  resolveRun(root, r, decision, reason, { gates: GATES, patch });

describe('scenarios: end-of-ticket gates, fail-safe repair, test re-materialization', function () {
  this.timeout(120_000);
  const ws = freshCopyEachTest();
  const read = ws.read;

  it("BLOG-6, hostile: a repair that silences the type error with // @ts-nocheck instead of fixing it fails the gate, and the run", async () => {
    const ticket = JSON.parse(read('.tickets/BLOG-6.ticket.json')) as { id: string; scope: { write: string[] } };
    ticket.id = 'NOCHECK-1';
    ticket.scope.write.push('src/reports/digest.ts');
    writeFileSync(path.join(ws.root, '.tickets/NOCHECK-1.ticket.json'), JSON.stringify(ticket, null, 2));
    const script = JSON.parse(read('.tickets/BLOG-6.script.json')) as Record<string, unknown>;
    script.coder = [
      { expect: { attempt: 1 }, files: { 'src/format/postSummary.ts': answer('BLOG-6', 'attempt1.ts') } },
      { expect: { attempt: 1, promptIncludes: ['End-of-ticket gate "typecheck" failed'] }, files: { 'src/reports/digest.ts': `// @ts-nocheck\n${read('src/reports/digest.ts')}` } },
    ];
    writeFileSync(path.join(ws.root, '.tickets/NOCHECK-1.script.json'), JSON.stringify(script, null, 2));
    const { state } = await runTicket(ws.root, 'NOCHECK-1', { gates: { enabled: ['typecheck'] } });
    assert.deepEqual(gateRuns(state), ['typecheck:failed', 'typecheck:failed@typecheck']);
    const after = state.gates[1]!;
    assert.deepEqual(after.evidence?.kind === 'typecheck' && after.evidence.diagnostics.map((d) => [d.file, d.line, d.code]), [['src/reports/digest.ts', 1, 'added-suppression']]);
    assert.match(after.detail, /1 error the change reaches/);
    assert.equal(state.repairs[0]?.ok, false);
    assert.ok(!read('src/reports/digest.ts').includes('@ts-nocheck'), 'the failed repair is undone, its directive with it');
    assert.equal(state.status, 'failed');
  });

  it('BLOG-6: a cross-file type error only the project-wide check catches; one repair, then every gate passes', async () => {
    const { state } = await run(ws.root, 'BLOG-6');
    assert.equal(state.status, 'passed');
    // The inner loop's check of the changed file and its direct importers was clean.
    assert.equal(state.attempts[0]?.diagnostics?.ok, true);
    assert.ok(!state.attempts[0]?.diagnostics?.checkedFiles.includes('src/reports/digest.ts'));
    assert.deepEqual(gateRuns(state), [
      'typecheck:failed',
      'typecheck:passed@typecheck',
      'lint:skipped',
      'build:skipped',
      'projectTests:passed',
      'implementationReview:passed',
      'testReview:passed',
      'coverage:passed',
    ]);
    const failed = state.gates[0]!.evidence;
    assert.equal(failed?.kind, 'typecheck');
    if (failed?.kind === 'typecheck') {
      assert.deepEqual(failed.tool, { name: 'tsc', version: '5.9.3', source: 'workspace' });
      assert.deepEqual(failed.diagnostics.map((d) => [d.file, d.code]), [['src/reports/digest.ts', 'TS2345']]);
    }
    // The repair wrote after the attempt's run of the project tests: the gate ran them all again.
    assert.doesNotMatch(state.gates.find((g) => g.gate === 'projectTests')!.detail, /checks ran them/);
    assert.equal(state.repairs.length, 1);
    const [repair] = state.repairs;
    assert.deepEqual([repair?.gate, repair?.ok, repair?.stage, repair?.reverted], ['typecheck', true, 'done', false]);
    assert.equal(repair?.regression?.required.length, 2);
    assert.deepEqual(repair?.regression?.failed, []);
    assert.deepEqual([callsOf(state, 'coder'), callsOf(state, 'reviewer'), callsOf(state, 'testReviewer')], [2, 1, 1]);
    assert.equal(read('src/format/postSummary.ts'), answer('BLOG-6', 'repair.ts'));
    const coverage = state.gates[7]!.evidence;
    assert.ok(coverage?.kind === 'coverage' && coverage.changedLines > 0 && coverage.coveredLines === coverage.changedLines);
    assert.match(formatRunReport(state), /Repair of typecheck: ok[\s\S]*mini regression: 2 test\(s\) required, all pass/);
  });

  it('BLOG-7: a repair that fails its mini regression is put back, and the run ends as the review failed', async () => {
    const { state } = await run(ws.root, 'BLOG-7');
    assert.equal(state.status, 'failed');
    assert.deepEqual(state.finished?.reason, { kind: 'gateFailed', gate: 'implementationReview' });
    assert.deepEqual(gateRuns(state), ['typecheck:passed', 'lint:skipped', 'build:skipped', 'projectTests:passed', 'implementationReview:failed']);
    // The type-check ran beside the attempt's tests, which wrote nothing: the gate took its result.
    assert.match(state.gates[0]!.detail, /^tsc 5\.9\.3 \(the workspace's own\), kept running for the run: \d+ of \d+ files unchanged since its last check, started beside the attempt's tests, no file changed since: clean$/);
    const review = state.gates[4]!.evidence;
    assert.ok(review?.kind === 'implementationReview' && review.blockers[0]?.file === 'src/handlers/posts.ts');
    const [repair] = state.repairs;
    assert.deepEqual([repair?.gate, repair?.ok, repair?.stage, repair?.reverted], ['implementationReview', false, 'regression', true]);
    assert.equal(repair?.regression?.required.length, 2);
    assert.deepEqual(repair?.regression?.failed.map((n) => n.replace(/^.* > /, '')), ['[AC2] keeps the default page without perPage']);
    assert.match(repair?.complaints?.[0] ?? '', /perPage=Infinity is not NaN/);
    // The verdict stands: no second review of a repair that was put back.
    assert.deepEqual([callsOf(state, 'coder'), callsOf(state, 'reviewer')], [2, 1]);
    assert.equal(read('src/handlers/posts.ts'), answer('BLOG-7', 'attempt1.ts'));
  });

  it('BLOG-8: an error thrown inside the repair path ends the run as the type-check failed, with the error on record', async () => {
    const { state } = await run(ws.root, 'BLOG-8');
    assert.equal(state.status, 'failed');
    assert.deepEqual(state.finished?.reason, { kind: 'gateFailed', gate: 'typecheck' });
    assert.deepEqual(gateRuns(state), ['typecheck:failed']);
    const [repair] = state.repairs;
    assert.deepEqual([repair?.ok, repair?.stage, repair?.error?.name, repair?.reverted], [false, 'model', 'RunStop', false]);
    assert.match(repair?.error?.message ?? '', /coder model failed: scripted model: recorded transport failure/);
    assert.match(repair?.complaints?.[0] ?? '', /^src\/reports\/digest\.ts:5:56 TS2345/);
    assert.equal(read('src/format/postSummary.ts'), answer('BLOG-8', 'attempt1.ts'));
  });

  it('fail-safe: a port that throws mid-repair (after a write) ends the run the same way, with the files put back', async () => {
    let gatesStarted = false;
    const { state } = await run(ws.root, 'BLOG-6', (deps) => {
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
      deps.gates = { ...deps.gates!, coverage: { run: (request, signal) => (fallsOver() ? Promise.reject(new TypeError('the test runner fell over')) : measure(request, signal)), measuresAsItRuns: (f) => coverage.measuresAsItRuns?.(f) ?? false } };
    });
    assert.equal(state.status, 'failed');
    assert.deepEqual(state.finished?.reason, { kind: 'gateFailed', gate: 'typecheck' });
    const [repair] = state.repairs;
    assert.deepEqual([repair?.ok, repair?.stage, repair?.error, repair?.reverted], [false, 'regression', { name: 'TypeError', message: 'the test runner fell over' }, true]);
    assert.equal(read('src/format/postSummary.ts'), answer('BLOG-6', 'attempt1.ts'));
  });

  it('gates fail closed: a gate whose tool throws ends the run failed with the gate as an error; made optional, the run passes and says it was not judged', async () => {
    const throwing = (deps: PipelineDeps, optional: 'typecheck'[]) => {
      deps.gates = { ...deps.gates!, enabled: [...deps.gates!.enabled, 'build'], buildCommand: 'exit 0', optional, typecheck: { check: () => Promise.reject(new Error('tsc vanished')) } };
    };
    const closed = await run(ws.root, 'BLOG-5', (deps) => throwing(deps, []));
    assert.equal(closed.state.status, 'failed');
    assert.deepEqual(closed.state.finished?.reason, { kind: 'gateError', gate: 'typecheck', message: 'the gate could not run: Error: tsc vanished' });
    assert.deepEqual(gateRuns(closed.state), ['typecheck:error']);
    assert.deepEqual(closed.state.repairs, []);

    const fresh = copyFixture();
    const { state } = await run(fresh.root, 'BLOG-5', (deps) => throwing(deps, ['typecheck'])).finally(() => fresh.dispose());
    assert.equal(state.status, 'passed');
    assert.deepEqual(gateRuns(state), ['typecheck:error', 'lint:skipped', 'build:passed', 'projectTests:passed', 'implementationReview:passed', 'testReview:passed', 'coverage:passed']);
    assert.deepEqual(state.notJudged, [{ gate: 'typecheck', detail: 'the gate could not run: Error: tsc vanished' }]);
    assert.match(formatRunReport(state).split('\n')[0]!, /NOT JUDGED: typecheck/);
  });

  it('BLOG-9: the Test Reviewer\'s corrected plan is validated and goes to the operator; accepted, it is re-rendered and the run resumes from the tests and passes; rejected, the run ends with the request on record', async () => {
    const first = await run(ws.root, 'BLOG-9');
    const s1 = first.state;
    assert.equal(s1.status, 'needsOperator');
    assert.deepEqual(gateRuns(s1), ['typecheck:passed', 'lint:skipped', 'build:skipped', 'projectTests:passed', 'implementationReview:passed', 'testReview:failed']);
    const req = s1.corrections[0]!.request;
    assert.deepEqual([req.target, req.fact.kind, req.proposal.kind], ['testPlan', 'criterionNotCovered', 'testPlan']);
    assert.match(req.fact.detail, /AC2/);
    assert.deepEqual(s1.finished?.reason, { kind: 'correctionRequested', requestId: req.id, route: 'test' });
    assert.match(read('test/ticket/BLOG-9.test.ts'), /id: '42'/);
    // The same waiting run, twice: one copy is accepted, the other rejected.
    const other = path.join(path.dirname(ws.root), 'rejected');
    cpSync(ws.root, other, { recursive: true });

    const { state } = await resolve(ws.root, first, 'accept');
    assert.equal(state.status, 'passed');
    assert.deepEqual(state.resumes.map((r) => r.from), ['tests']);
    const rendered = read('test/ticket/BLOG-9.test.ts');
    assert.match(rendered, /id: '9999'/);
    assert.doesNotMatch(rendered, /id: '42'/);
    assert.deepEqual(gateRuns(state).slice(6), ['typecheck:passed', 'lint:skipped', 'build:skipped', 'projectTests:passed', 'implementationReview:passed', 'testReview:passed', 'coverage:passed']);
    // No new Coder attempt: the same code passed the corrected tests, as a recheck that keeps
    // attempt 1's own result on record; the unchanged code was not reviewed twice.
    assert.deepEqual([state.attempts.length, callsOf(state, 'coder'), callsOf(state, 'reviewer'), callsOf(state, 'testReviewer')], [2, 1, 1, 2]);
    assert.deepEqual(state.attempts.map((a) => [a.n, a.status, a.files.length]), [[1, 'passed', 1], [2, 'passed', 0]]);
    assert.match(state.attempts[1]?.recheck ?? '', /the operator accepted a corrected test plan/);
    assert.deepEqual(state.attempts[0]?.tests, s1.attempts[0]?.tests, 'the first attempt\'s result is never overwritten');
    assert.equal(state.attempts[1]?.tests?.cases.find((c) => c.name.includes('missing post'))?.status, 'passed');

    const rejected = (await resolve(other, first, 'reject', 'post 42 is the case we care about')).state;
    assert.equal(rejected.status, 'failed');
    assert.deepEqual(rejected.finished?.reason, { kind: 'correctionRejected', requestId: req.id, reason: 'post 42 is the case we care about' });
    assert.deepEqual([rejected.corrections[0]?.status, rejected.corrections[0]?.request.proposal.kind], ['rejected', 'testPlan']);
    assert.match(readFileSync(path.join(other, 'test/ticket/BLOG-9.test.ts'), 'utf8'), /id: '42'/);
  });

  it('resume from the tests: when the corrected tests fail the code, the Coder gets the failure and the gates run after it', async () => {
    // BLOG-9 again, but the corrected case also wants a body the code does not give: the code must change.
    type Plan = { files: { cases: { expect: unknown[] }[] }[] };
    const script = JSON.parse(read('.tickets/BLOG-9.script.json')) as { coder: unknown[]; testReviewer: { expect: { attempt: number }; structured: { proposedTestPlan?: Plan } }[] };
    const proposed = script.testReviewer[0]!.structured.proposedTestPlan!;
    proposed.files[0]!.cases[1]!.expect.push({ kind: 'equal', mode: 'deep', actual: 'res.body', expected: "{ error: 'No post 9999' }" });
    const fixed = answer('BLOG-9', 'attempt1.ts').replace('`Post ${req.params.id} not found`', '`No post ${req.params.id}`');
    script.coder.push({ expect: { attempt: 3, promptIncludes: ['The last attempt failed:\nthe operator accepted a corrected test plan'] }, files: { 'src/handlers/posts.ts': fixed } });
    // The second review now looks at attempt 3 (attempt 2 is the recheck of the old code).
    script.testReviewer[1]!.expect.attempt = 3;
    writeFileSync(path.join(ws.root, '.tickets/BLOG-9.script.json'), JSON.stringify(script));
    const only = (deps: PipelineDeps) => {
      deps.gates = { ...deps.gates!, enabled: ['testReview'] };
    };
    const first = await run(ws.root, 'BLOG-9', only);
    assert.equal(first.state.status, 'needsOperator');
    const { state } = await resolve(ws.root, first, 'accept', undefined, only);
    assert.equal(state.status, 'passed', JSON.stringify(state.finished));
    // Append-only: attempt 1 keeps its pass, the recheck of its code fails the new tests, attempt 3 fixes it.
    assert.deepEqual(state.attempts.map((a) => [a.n, a.status]), [[1, 'passed'], [2, 'failed'], [3, 'passed']]);
    assert.match(state.attempts[1]?.recheck ?? '', /corrected test plan/);
    assert.equal(state.attempts[2]?.brief, undefined, 'a failure is not passed off as the Debugger\'s brief');
    assert.deepEqual(gateRuns(state).filter((g) => !g.endsWith(':skipped')), ['testReview:failed', 'testReview:passed']);
    assert.match(read('src/handlers/posts.ts'), /No post \$\{req\.params\.id\}/);
  });
});
