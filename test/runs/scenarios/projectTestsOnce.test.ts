import assert from 'node:assert/strict';
import type { PipelineDeps } from '../../../src/core/stages/context';
import { DEFAULT_GATES } from '../../../src/core/stages/gates/config';
import { freshCopyEachTest, gateRuns, runTicket } from '../../support/scenario';

/**
 * The project's own tests run once per question: the projectTests gate takes the results of the
 * attempt's run of the tests that reach the change, when nothing could have changed what they
 * read since, and runs only the other files. Whole runs of BLOG-1 on blog-api with the real
 * tools (node:test in the sandbox, tsc, the language service) and the scripted model.
 */

const PROJECT_TESTS = ['test/markup.test.ts', 'test/pagination.test.ts', 'test/postSummary.test.ts', 'test/posts.test.ts', 'test/tags.test.ts'];

/** Records the files of each run of the project's own tests (the ticket's rendered tests are left out). */
function projectTestRuns(deps: PipelineDeps, runs: string[][]): void {
  const run = deps.tests.run.bind(deps.tests);
  deps.tests.run = (request, signal) => {
    if (!request.files.some((f) => f.startsWith('test/ticket/'))) runs.push([...request.files]);
    return run(request, signal);
  };
}

describe('scenarios: the project tests run once per question', function () {
  this.timeout(180_000);
  const ws = freshCopyEachTest();

  it('BLOG-1: the gate runs only the project test files the attempt did not, and says whose results it took', async () => {
    const runs: string[][] = [];
    const { state } = await runTicket(ws.root, 'BLOG-1', { gates: { enabled: DEFAULT_GATES }, patch: (deps) => projectTestRuns(deps, runs) });
    assert.equal(state.status, 'passed', JSON.stringify(state.finished));
    const last = state.attempts.at(-1)!;
    const byAttempt = last.projectTests?.files ?? [];
    assert.ok(byAttempt.includes('test/posts.test.ts'), `the attempt ran the tests that reach the change: ${byAttempt.join(', ')}`);
    // The baseline (every file), the attempt's run, the gate's run of the rest: each file once after the change.
    assert.deepEqual(runs[0], PROJECT_TESTS);
    assert.deepEqual(runs.at(-2), byAttempt);
    assert.deepEqual(runs.at(-1), PROJECT_TESTS.filter((f) => !byAttempt.includes(f)));
    assert.equal(runs.length, 3);
    const gate = state.gates.find((g) => g.gate === 'projectTests')!;
    assert.equal(gate.status, 'passed');
    assert.match(gate.detail, new RegExp(`^5 test files \\(${byAttempt.length} of them as attempt ${state.attempts.length}'s checks ran them, on this same code\\): no test that passed before the run fails now$`));
    assert.ok(gate.evidence?.kind === 'projectTests' && gate.evidence.files.length === 5);
  });

  it('hostile: a build between the attempt and the gate rewrites what a passing test reads; the gate runs every file again and fails', async () => {
    const runs: string[][] = [];
    // A build whose output is source the tests import: the seed data loses a post.
    const buildCommand = "sed -i 's/POST_COUNT = 250/POST_COUNT = 249/' src/data/seed.ts";
    const { state } = await runTicket(ws.root, 'BLOG-1', { gates: { enabled: [...DEFAULT_GATES, 'build'], buildCommand }, patch: (deps) => projectTestRuns(deps, runs) });
    assert.deepEqual(gateRuns(state).slice(0, 4), ['typecheck:passed', 'lint:skipped', 'build:passed', 'projectTests:failed']);
    const gate = state.gates.find((g) => g.gate === 'projectTests')!;
    assert.ok(gate.evidence?.kind === 'projectTests');
    assert.ok(gate.evidence.newlyFailing.includes('test/posts.test.ts › the store holds the 250 seeded posts'), gate.evidence.newlyFailing.join('; '));
    assert.doesNotMatch(gate.detail, /checks ran them/);
    // The attempt's results were not taken: the gate's run was every file.
    // The baseline, the passing attempt's run of a part, then the gate's run: every file.
    const attemptFiles = state.attempts.find((a) => a.projectTests)?.projectTests?.files ?? [];
    assert.ok(attemptFiles.length > 0 && attemptFiles.length < PROJECT_TESTS.length, `the attempt ran a part: ${attemptFiles.join(', ')}`);
    assert.deepEqual(runs.slice(1, 3), [attemptFiles, PROJECT_TESTS]);
    assert.notEqual(state.status, 'passed');
  });
});
