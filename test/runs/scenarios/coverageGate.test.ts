import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { PipelineDeps } from '../../../src/core/stages/common/context';
import { DEFAULT_GATES, type GateSettings } from '../../../src/core/stages/common/gateConfig';
import type { RunResult } from '../../../src/core';
import { freshCopyEachTest, gateRuns, resolveRun, runTicket } from '../../support/scenario';
import { FIXTURE } from '../../support/tempWorkspace';

/**
 * The coverage gate, end to end on temp copies of the blog-api fixture, with the real tools (the
 * TypeScript language service, Tree-sitter, node:test with V8 coverage) and the scripted model:
 * changed lines no test runs, and code under test that tries to forge or dodge the measure. The
 * other gates' stories are in gates.test.ts; the two files run side by side in the tier.
 */

const GATES: GateSettings = { enabled: DEFAULT_GATES };
/** New logic with a branch and a loop, which no ticket test calls. */
const DIGEST_FOR = `export function digestFor(ids: number[]): string {
  const out: string[] = [];
  for (const id of ids) {
    if (id < 0) throw new Error('negative id');
    out.push(String(id * 2));
  }
  return out.join(',');
}
`;
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

describe('scenarios: the coverage gate, and code that forges or dodges its measure', function () {
  this.timeout(120_000);
  const ws = freshCopyEachTest();
  const read = ws.read;

  /** BLOG-9's ticket and answer, with `file` in scope and `digestFor` appended to it (no ticket test calls it). */
  const withDigestIn = (id: string, file: string): void => {
    const ticket = JSON.parse(read('.tickets/BLOG-9.ticket.json')) as { id: string; scope: { write: string[] } };
    ticket.id = id;
    ticket.scope.write.push(file);
    writeFileSync(path.join(ws.root, `.tickets/${id}.ticket.json`), JSON.stringify(ticket, null, 2));
    writeFileSync(
      path.join(ws.root, `.tickets/${id}.script.json`),
      JSON.stringify({
        coder: [
          {
            expect: { attempt: 1 },
            files: { 'src/handlers/posts.ts': answer('BLOG-9', 'attempt1.ts'), [file]: `${read(file)}\n${DIGEST_FOR}` },
          },
        ],
        testReviewer: [
          { structured: { verdict: 'fail', claim: `no test runs digestFor in ${file}`, criteria: [{ id: 'AC1', covered: true }] } },
        ],
      }),
    );
  };

  /** Runs that ticket with the coverage gate alone: the gate fails, digestFor's lines are among those not run, and the run does not pass. */
  const digestNotRun = async (id: string, file: string) => {
    withDigestIn(id, file);
    const { state } = await runTicket(ws.root, id, { gates: { enabled: ['coverage'] } });
    const cov = state.gates.find((g) => g.gate === 'coverage');
    assert.equal(cov?.status, 'failed', cov?.detail);
    assert.ok(cov?.evidence?.kind === 'coverage');
    const missed = cov.evidence.uncovered.find((u) => u.file === file)?.lines ?? [];
    assert.ok(missed.length >= 5, JSON.stringify(cov.evidence.uncovered));
    assert.notEqual(state.status, 'passed');
    return { ...cov, evidence: cov.evidence };
  };

  it('a changed file no test loads counts every changed line of it as not run: new logic in a module the tests never import fails the coverage gate', async () => {
    const cov = await digestNotRun('UNLOADED-1', 'src/reports/digest.ts');
    assert.deepEqual(cov.evidence.unloaded, []);
  });

  it("hostile: new logic in a changed file that only a project test imports, and never calls, counts as not run: measured under the project's own tests, the coverage gate fails", async () => {
    // No ticket test loads src/format/postSummary.ts; test/postSummary.test.ts imports it and calls only summarize.
    const cov = await digestNotRun('PROJREACH-1', 'src/format/postSummary.ts');
    assert.deepEqual([cov.evidence.byProjectTests, cov.evidence.unloaded], [['src/format/postSummary.ts'], []]);
    assert.match(cov.detail, /measured under the project's own tests that reach them: src\/format\/postSummary\.ts/);
  });

  /** COVEXIT-1: BLOG-9's answer, with code that runs two calls and ends the process while V8 coverage is measured. */
  const exitsUnderCoverage = (): void => {
    const ticket = JSON.parse(read('.tickets/BLOG-9.ticket.json')) as { id: string };
    ticket.id = 'COVEXIT-1';
    writeFileSync(path.join(ws.root, '.tickets/COVEXIT-1.ticket.json'), JSON.stringify(ticket, null, 2));
    const code = `${answer('BLOG-9', 'attempt1.ts')}
if (process.env['NODE_V8_COVERAGE']) {
  getPostHandler({ params: { id: 'x' } });
  getPostHandler({ params: { id: '1' } });
  process.exit(0);
}
`;
    writeFileSync(
      path.join(ws.root, '.tickets/COVEXIT-1.script.json'),
      JSON.stringify({ coder: [{ expect: { attempt: 1 }, files: { 'src/handlers/posts.ts': code } }] }),
    );
  };

  it("hostile: code that ends the test process early only while coverage is measured gets no measure: the coverage gate is an error, never a pass (the gate's own run)", async () => {
    exitsUnderCoverage();
    // The judging runs measure nothing here, as with a runner whose coverage instruments the code: the gate runs the tests itself.
    const { state } = await runTicket(ws.root, 'COVEXIT-1', {
      gates: { enabled: ['coverage'] },
      patch: (deps) => void (deps.gates!.coverage!.measuresAsItRuns = () => false),
    });
    assert.equal(state.attempts[0]?.tests?.status, 'passed', 'without coverage the code runs its tests');
    const cov = state.gates.find((g) => g.gate === 'coverage');
    assert.equal(cov?.status, 'error', cov?.detail);
    assert.match(cov?.detail ?? '', /the runner said passed under V8 coverage, but \d+ cases? of the test plan did not pass/);
    assert.notEqual(state.status, 'passed');
  });

  it('hostile: the same code where the run that judges the tests measures them: its early end fails the attempt, and the run never passes', async () => {
    exitsUnderCoverage();
    const { state } = await runTicket(ws.root, 'COVEXIT-1', { gates: { enabled: ['coverage'] } });
    const tests = state.attempts[0]?.tests;
    assert.equal(tests?.status, 'failed', 'measured as it is judged, the code ends its tests early');
    assert.match(tests?.output ?? '', /cases of the test plan did not pass|did not pass/);
    assert.equal(state.gates.length, 0, 'no gate runs after a failed attempt');
    assert.notEqual(state.status, 'passed');
  });

  it('a passing run on node:test: the coverage gate reads the measure of the run that judged the tests, and starts no test run of its own', async () => {
    let testRuns = 0;
    let measuredRuns = 0;
    let gateRuns = 0;
    const { state } = await runTicket(ws.root, 'BLOG-9', {
      gates: { enabled: ['coverage'] },
      patch: (deps) => {
        const tests = deps.tests;
        const run = tests.run.bind(tests);
        tests.run = (request, signal) => (testRuns++, run(request, signal));
        const coverage = deps.gates!.coverage!;
        const measure = coverage.run.bind(coverage);
        coverage.run = (request, signal) => (gateRuns++, measure(request, signal));
        // The judging run reads its measure after the tests have ended, while the checks go on.
        const measured = coverage.measuredRun!.bind(coverage);
        coverage.measuredRun = (request, signal) => (measuredRuns++, measured(request, signal));
      },
    });
    assert.equal(state.status, 'passed', JSON.stringify(state.finished));
    const cov = state.gates.find((g) => g.gate === 'coverage');
    assert.equal(cov?.status, 'passed', cov?.detail);
    assert.match(cov?.detail ?? '', /V8 coverage of the run that judged the tests/);
    assert.equal(measuredRuns, state.attempts.length, "one measured run per attempt's judging run");
    assert.equal(gateRuns, 0, 'none for the gate');
    assert.equal(
      state.attempts.every((a) => a.tests?.status !== undefined),
      true,
    );
    assert.ok(testRuns >= 1, "the project's own tests still run through the test runner");
  });

  /**
   * The changed file adds a function no test calls, and writes into NODE_V8_COVERAGE a file
   * named as Node names its own, with ranges inside the script that say every line ran.
   */
  const forgingCode = (pid: string) => `${answer('BLOG-9', 'attempt1.ts')}
${DIGEST_FOR}
const coverageDir = process.env['NODE_V8_COVERAGE'];
if (coverageDir) {
  const fs = require('node:fs') as typeof import('node:fs');
  const url = require('node:url') as typeof import('node:url');
  const length = fs.readFileSync(__filename, 'utf8').length;
  const forged = { result: [{ url: url.pathToFileURL(__filename).href, functions: [{ ranges: [{ startOffset: 0, endOffset: length, count: 1 }] }] }] };
  fs.writeFileSync(\`\${coverageDir}/coverage-\${${pid}}-\${Date.now()}-0.json\`, JSON.stringify(forged));
}
`;

  const forgedRun = async (pid: string, why: RegExp | 'not run'): Promise<void> => {
    const ticket = JSON.parse(read('.tickets/BLOG-9.ticket.json')) as { id: string };
    ticket.id = 'COVFORGE-1';
    writeFileSync(path.join(ws.root, '.tickets/COVFORGE-1.ticket.json'), JSON.stringify(ticket, null, 2));
    // Where the forgery is not read, the gate asks which case would run the lines: none is proposed.
    const reviewer = {
      expect: { attempt: 1, promptIncludes: ['Changed lines no test runs', 'digestFor'] },
      structured: { verdict: 'fail', claim: 'no case calls digestFor', criteria: [{ id: 'AC1', covered: true }] },
    };
    writeFileSync(
      path.join(ws.root, '.tickets/COVFORGE-1.script.json'),
      JSON.stringify({
        coder: [{ expect: { attempt: 1 }, files: { 'src/handlers/posts.ts': forgingCode(pid) } }],
        ...(why === 'not run' ? { testReviewer: [reviewer] } : {}),
      }),
    );
    const { state } = await runTicket(ws.root, 'COVFORGE-1', { gates: { enabled: ['coverage'] } });
    assert.equal(state.attempts[0]?.tests?.status, 'passed', 'the ticket tests pass');
    const cov = state.gates.find((g) => g.gate === 'coverage');
    if (why === 'not run') {
      // The forgery is not read: the untested logic counts as not run, as without it.
      assert.equal(cov?.status, 'failed', cov?.detail);
      assert.ok(cov?.evidence?.kind === 'coverage' && cov.evidence.coveredLines < cov.evidence.changedLines, JSON.stringify(cov?.evidence));
    } else {
      assert.equal(cov?.status, 'error', cov?.detail);
      assert.match(cov?.detail ?? '', /the coverage measure was written by something other than Node/);
      assert.match(cov?.detail ?? '', why);
    }
    assert.notEqual(state.status, 'passed');
  };

  it("hostile: code under test that writes a coverage file named as Node's, with its own pid and every line run, makes V8's measure unusable: the coverage gate is an error, never a pass", () =>
    forgedRun('process.pid', /both name process \d+, for which Node writes one file/));

  it("hostile: code under test that writes a coverage file named as Node's, with a made-up pid and every line run, is not read: no process of the test command had that pid, the untested logic counts as not run and the coverage gate fails", () =>
    forgedRun('process.pid + 7919', 'not run'));

  it('coverage: changed lines no test runs get a corrected plan from the Test Reviewer; accepted, the run resumes and passes', async () => {
    // BLOG-9's change, with a plan that never sends a malformed id: the 400 branch is not run.
    const ticket = JSON.parse(read('.tickets/BLOG-9.ticket.json')) as { id: string; testPlan: { files: { cases: unknown[] }[] } };
    const firstCase = (JSON.parse(read('.tickets/BLOG-9.ticket.json')) as typeof ticket).testPlan.files[0]!.cases[0];
    ticket.id = 'COV-1';
    const plan = ticket.testPlan;
    plan.files[0]!.cases = [plan.files[0]!.cases[1]];
    const corrected = JSON.parse(JSON.stringify(plan)) as typeof plan;
    corrected.files[0]!.cases.unshift(firstCase);
    writeFileSync(path.join(ws.root, '.tickets/COV-1.ticket.json'), JSON.stringify(ticket, null, 2));
    const script = {
      coder: [{ expect: { attempt: 1 }, files: { 'src/handlers/posts.ts': { from: 'answers/BLOG-9/attempt1.ts' } } }],
      testReviewer: [
        {
          expect: {
            attempt: 1,
            promptIncludes: [
              'Changed lines no test runs',
              "return { status: 400, body: { error: 'Post id must be a positive integer' } };",
            ],
          },
          structured: {
            verdict: 'fail',
            claim: 'no case sends a malformed id',
            criteria: [{ id: 'AC1', covered: false }],
            proposedTestPlan: corrected,
          },
        },
      ],
    };
    writeFileSync(path.join(ws.root, '.tickets/COV-1.script.json'), JSON.stringify(script));
    const only = (deps: PipelineDeps) => {
      deps.gates = { ...deps.gates!, enabled: ['typecheck', 'coverage'] };
    };

    const first = await run(ws.root, 'COV-1', only);
    assert.equal(first.state.status, 'needsOperator');
    assert.deepEqual(
      gateRuns(first.state).filter((g) => !g.endsWith(':skipped')),
      ['typecheck:passed', 'coverage:failed'],
    );
    const evidence = first.state.gates.at(-1)!.evidence;
    assert.ok(evidence?.kind === 'coverage' && evidence.coveredLines < evidence.changedLines);
    assert.deepEqual(evidence.kind === 'coverage' && evidence.uncovered.map((u) => u.file), ['src/handlers/posts.ts']);
    const req = first.state.corrections[0]!.request;
    assert.deepEqual([req.fact.kind, req.fact.file, req.proposal.kind], ['changedLinesUncovered', 'src/handlers/posts.ts', 'testPlan']);

    const { state } = await resolve(ws.root, first, 'accept', undefined, only);
    assert.equal(state.status, 'passed');
    assert.deepEqual(
      gateRuns(state)
        .filter((g) => !g.endsWith(':skipped'))
        .slice(2),
      ['typecheck:passed', 'coverage:passed'],
    );
    assert.match(read('test/ticket/BLOG-9.test.ts'), /id: 'abc'/);
  });
});
