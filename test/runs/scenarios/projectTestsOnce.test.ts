import assert from 'node:assert/strict';
import type { PipelineDeps } from '../../../src/core/stages/common/context';
import { DEFAULT_GATES } from '../../../src/core/stages/common/gateConfig';
import { ALONG_LIMIT_MS } from '../../../src/core/stages/checks/attemptRegression';
import { loadEvents } from '../../support/rungRuns';
import { freshCopyEachTest, gateRuns, runTicket } from '../../support/scenario';

/**
 * The project's own tests run once per question: the projectTests gate takes the results of the
 * attempt's run of the tests that reach the change, when nothing could have changed what they
 * read since, and runs only its other files (by default it has none: its files are the attempt's);
 * when it runs the whole suite, those run along in the attempt's own command when the whole suite
 * took at most ALONG_LIMIT_MS before the run. Whole runs of BLOG-1 on blog-api
 * with the real tools (node:test in the sandbox, tsc, the language service) and the scripted model.
 */

const PROJECT_TESTS = [
  'test/markup.test.ts',
  'test/pagination.test.ts',
  'test/postSummary.test.ts',
  'test/posts.test.ts',
  'test/tags.test.ts',
];

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

  it('BLOG-1: by default the gate runs the files that reach the change, which the attempt ran: it takes their results and runs nothing', async () => {
    const runs: string[][] = [];
    const { state } = await runTicket(ws.root, 'BLOG-1', {
      gates: { enabled: DEFAULT_GATES },
      patch: (deps) => projectTestRuns(deps, runs),
    });
    assert.equal(state.status, 'passed', JSON.stringify(state.finished));
    assert.deepEqual(runs, [['test/posts.test.ts'], ['test/posts.test.ts']], 'the baseline, then the attempt');
    const gate = state.gates.find((g) => g.gate === 'projectTests')!;
    assert.match(
      gate.detail,
      new RegExp(
        `^1 of 5 test files reaches the change \\(all as attempt ${state.attempts.length}'s checks ran them, on this same code\\); no test that passed before the run fails now$`,
      ),
    );
    assert.deepEqual(gate.evidence?.kind === 'projectTests' && gate.evidence.selection, { by: 'reach', suite: 5 });
  });

  it('BLOG-1, the whole suite asked for: the gate runs only the project test files the attempt did not (or none, when they ran along), and says whose results it took', async () => {
    const runs: string[][] = [];
    const { state, runId } = await runTicket(ws.root, 'BLOG-1', {
      gates: { enabled: DEFAULT_GATES, projectTests: 'all' },
      patch: (deps) => projectTestRuns(deps, runs),
    });
    assert.equal(state.status, 'passed', JSON.stringify(state.finished));
    const last = state.attempts.at(-1)!;
    const byAttempt = last.projectTests?.files ?? [];
    assert.deepEqual(byAttempt, ['test/posts.test.ts'], 'the attempt is judged on the tests that reach the change');
    const rest = PROJECT_TESTS.filter((f) => !byAttempt.includes(f));
    const baseline = (await loadEvents(ws.root, runId)).find((e) => e.type === 'projectTests.baseline');
    const along = baseline?.type === 'projectTests.baseline' && baseline.durationMs <= ALONG_LIMIT_MS;
    // The baseline (every file), then each file once after the change: in the attempt's run, or in the gate's.
    assert.deepEqual(runs[0], PROJECT_TESTS);
    if (along) assert.deepEqual(runs.slice(1), [[...byAttempt, ...rest]]);
    else assert.deepEqual(runs.slice(1), [byAttempt, rest]);
    const gate = state.gates.find((g) => g.gate === 'projectTests')!;
    assert.equal(gate.status, 'passed');
    const taken = along ? 'all' : `${byAttempt.length} of them`;
    assert.match(
      gate.detail,
      new RegExp(
        `^the whole suite \\(5 test files\\), as the project asks \\(${taken} as attempt ${state.attempts.length}'s checks ran them, on this same code\\); no test that passed before the run fails now$`,
      ),
    );
    assert.ok(gate.evidence?.kind === 'projectTests' && gate.evidence.files.length === 5);
  });

  it('hostile: a build between the attempt and the gate rewrites what a passing test reads; the gate runs its files again and fails', async () => {
    const runs: string[][] = [];
    // A build whose output is source the tests import: the seed data loses a post.
    const buildCommand = "sed -i 's/POST_COUNT = 250/POST_COUNT = 249/' src/data/seed.ts";
    const { state } = await runTicket(ws.root, 'BLOG-1', {
      gates: { enabled: [...DEFAULT_GATES, 'build'], buildCommand },
      patch: (deps) => projectTestRuns(deps, runs),
    });
    assert.deepEqual(gateRuns(state).slice(0, 4), ['typecheck:passed', 'lint:skipped', 'build:passed', 'projectTests:failed']);
    const gate = state.gates.find((g) => g.gate === 'projectTests')!;
    assert.ok(gate.evidence?.kind === 'projectTests');
    assert.ok(
      gate.evidence.newlyFailing.includes('test/posts.test.ts › the store holds the 250 seeded posts'),
      gate.evidence.newlyFailing.join('; '),
    );
    assert.doesNotMatch(gate.detail, /checks ran them/);
    // The baseline, the passing attempt's run of a part, then the gate's own run of the same part:
    // the attempt's results were not taken.
    const attemptFiles = state.attempts.find((a) => a.projectTests)?.projectTests?.files ?? [];
    assert.ok(
      attemptFiles.length > 0 && attemptFiles.length < PROJECT_TESTS.length,
      `the attempt was judged on a part: ${attemptFiles.join(', ')}`,
    );
    assert.deepEqual(runs, [attemptFiles, attemptFiles, attemptFiles]);
    assert.notEqual(state.status, 'passed');
  });
});
