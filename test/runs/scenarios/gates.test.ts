import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { PipelineDeps } from '../../../src/core/stages/common/context';
import { DEFAULT_GATES, type GateSettings } from '../../../src/core/stages/common/gateConfig';
import type { RunResult } from '../../../src/core';
import { formatRunReport } from '../../../src/core/run/views/report';
import { callsOf, freshCopyEachTest, gateRuns, resolveRun, runTicket } from '../../support/scenario';
import { FIXTURE } from '../../support/tempWorkspace';

/**
 * The end-of-ticket gates, end to end on temp copies of the blog-api fixture, with the real
 * tools (tsc, the TypeScript language service, Tree-sitter, node:test with V8 coverage) and
 * the scripted model. The gates' logic (a repair put back, a repair whose model fails, a port
 * that throws, a gate that fails closed, a corrected plan accepted or rejected) runs on the
 * recorded fakes in test/unit/loop/gates.test.ts; here are the stories only real tools tell: tsc
 * finding what the editor's check did not, a repair kept, a suppression a repair planted.
 */

const GATES: GateSettings = { enabled: DEFAULT_GATES };
const answer = (id: string, file: string) => readFileSync(path.join(FIXTURE, '.tickets', 'answers', id, file), 'utf8');

const run = (root: string, id: string, patch?: (deps: PipelineDeps) => void): Promise<RunResult> =>
  runTicket(root, id, { gates: GATES, patch });
const resolve = (
  root: string,
  r: RunResult,
  decision: 'accept' | 'reject',
  reason?: string,
  patch?: (deps: PipelineDeps) => void,
): Promise<RunResult> => resolveRun(root, r, decision, reason, { gates: GATES, patch });

describe('scenarios: end-of-ticket gates, fail-safe repair, test re-materialization', function () {
  this.timeout(120_000);
  const ws = freshCopyEachTest();
  const read = ws.read;

  it('BLOG-6, hostile: a repair that silences the type error with // @ts-nocheck instead of fixing it fails the gate, and the run', async () => {
    const ticket = JSON.parse(read('.tickets/BLOG-6.ticket.json')) as { id: string; scope: { write: string[] } };
    ticket.id = 'NOCHECK-1';
    ticket.scope.write.push('src/reports/digest.ts');
    writeFileSync(path.join(ws.root, '.tickets/NOCHECK-1.ticket.json'), JSON.stringify(ticket, null, 2));
    const script = JSON.parse(read('.tickets/BLOG-6.script.json')) as Record<string, unknown>;
    script.coder = [
      { expect: { attempt: 1 }, files: { 'src/format/postSummary.ts': answer('BLOG-6', 'attempt1.ts') } },
      {
        expect: { attempt: 1, promptIncludes: ['End-of-ticket gate "typecheck" failed'] },
        files: { 'src/reports/digest.ts': `// @ts-nocheck\n${read('src/reports/digest.ts')}` },
      },
    ];
    writeFileSync(path.join(ws.root, '.tickets/NOCHECK-1.script.json'), JSON.stringify(script, null, 2));
    const { state } = await runTicket(ws.root, 'NOCHECK-1', { gates: { enabled: ['typecheck'] } });
    assert.deepEqual(gateRuns(state), ['typecheck:failed', 'typecheck:failed@typecheck']);
    const after = state.gates[1]!;
    assert.deepEqual(after.evidence?.kind === 'typecheck' && after.evidence.diagnostics.map((d) => [d.file, d.line, d.code]), [
      ['src/reports/digest.ts', 1, 'added-suppression'],
    ]);
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
      assert.deepEqual(
        failed.diagnostics.map((d) => [d.file, d.code]),
        [['src/reports/digest.ts', 'TS2345']],
      );
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

  it('resume from the tests: when the corrected tests fail the code, the Coder gets the failure and the gates run after it', async () => {
    // BLOG-9 again, but the corrected case also wants a body the code does not give: the code must change.
    type Plan = { files: { cases: { expect: unknown[] }[] }[] };
    const script = JSON.parse(read('.tickets/BLOG-9.script.json')) as {
      coder: unknown[];
      testReviewer: { expect: { attempt: number }; structured: { proposedTestPlan?: Plan } }[];
    };
    const proposed = script.testReviewer[0]!.structured.proposedTestPlan!;
    proposed.files[0]!.cases[1]!.expect.push({ kind: 'equal', mode: 'deep', actual: 'res.body', expected: "{ error: 'No post 9999' }" });
    const fixed = answer('BLOG-9', 'attempt1.ts').replace('`Post ${req.params.id} not found`', '`No post ${req.params.id}`');
    script.coder.push({
      expect: { attempt: 3, promptIncludes: ['The last attempt failed:\nthe operator accepted a corrected test plan'] },
      files: { 'src/handlers/posts.ts': fixed },
    });
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
    assert.deepEqual(
      state.attempts.map((a) => [a.n, a.status]),
      [
        [1, 'passed'],
        [2, 'failed'],
        [3, 'passed'],
      ],
    );
    assert.match(state.attempts[1]?.recheck ?? '', /corrected test plan/);
    assert.equal(state.attempts[2]?.brief, undefined, "a failure is not passed off as the Debugger's brief");
    assert.deepEqual(
      gateRuns(state).filter((g) => !g.endsWith(':skipped')),
      ['testReview:failed', 'testReview:passed'],
    );
    assert.match(read('src/handlers/posts.ts'), /No post \$\{req\.params\.id\}/);
  });
});
