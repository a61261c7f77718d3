import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { RunState } from '../../../src/core/run/reducer';
import { writeHostileTicket } from '../../support/hostile';
import { cli } from '../../support/cli';
import { copyFixture, copyWorkspace, treeHash } from '../../support/tempWorkspace';

/**
 * What "passed" means, through the real CLI on fixture copies: a gate that could not judge
 * never passes (unless the operator made it optional, and then the report says so first),
 * and a test plan can never render over a file that is not a test.
 */

describe('the verdict: gates fail closed, test plans target test files', function () {
  this.timeout(180_000);
  let ws: ReturnType<typeof copyFixture>;
  beforeEach(() => {
    ws = copyFixture();
  });
  afterEach(() => ws.dispose());

  it('a lint gate whose ESLint config throws ends the run failed, the gate an error; with --optional-gates lint it passes and says "not judged" first', async () => {
    writeFileSync(path.join(ws.root, 'eslint.config.js'), "throw new Error('this config is broken');\n");
    const closed = await cli(['run', '.tickets/BLOG-5.ticket.json', '--workspace', ws.root, '--model', 'scripted', '--gates', 'lint']);
    assert.equal(closed.code, 1);
    assert.match(closed.out, /Outcome: failed: gate lint could not judge the change: ESLint could not run: .*this config is broken/);
    assert.match(closed.out, /Gate lint: error: could not judge the change/);

    const fresh = copyFixture();
    try {
      writeFileSync(path.join(fresh.root, 'eslint.config.js'), "throw new Error('this config is broken');\n");
      const open = await cli([
        'run',
        '.tickets/BLOG-5.ticket.json',
        '--workspace',
        fresh.root,
        '--model',
        'scripted',
        '--gates',
        'lint',
        '--optional-gates',
        'lint',
      ]);
      assert.equal(open.code, 0);
      const first = open.out.split('\n')[0]!;
      assert.match(first, /NOT JUDGED: lint/);
      assert.match(open.out, /Gate lint: not judged \(optional/);
    } finally {
      fresh.dispose();
    }
  });

  it('errors that were there before the run do not count: one in an importer of the changed module, one in an unrelated file; the pagination ticket still passes and show lists them as pre-existing', async () => {
    const append = (rel: string, text: string) =>
      writeFileSync(path.join(ws.root, rel), readFileSync(path.join(ws.root, rel), 'utf8') + text);
    append('src/index.ts', "export const brokenBefore: number = 'not a number';\n");
    append('src/reports/digest.ts', 'export const alsoBrokenBefore: string = 42;\n');
    const r = await cli(['run', '.tickets/BLOG-1.ticket.json', '--workspace', ws.root, '--model', 'scripted', '--json']);
    const { state, runId } = JSON.parse(r.out) as { runId: string; state: RunState };
    assert.equal(r.code, 0, `${state.finished?.reason.kind}: ${JSON.stringify(state.finished?.reason)}`);
    assert.deepEqual(
      state.attempts.map((a) => a.route?.route ?? 'passed'),
      ['code', 'passed'],
    );
    // The importer's old error was seen by every attempt's check, and not counted.
    for (const a of state.attempts)
      assert.deepEqual(
        a.diagnostics?.preExisting.map((d) => `${d.file} ${d.code}`),
        ['src/index.ts TS2322'],
      );
    const typecheck = state.gates.find((g) => g.gate === 'typecheck');
    assert.equal(typecheck?.status, 'passed');
    assert.deepEqual(typecheck?.evidence?.kind === 'typecheck' && typecheck.evidence.preExisting.map((d) => d.file).sort(), [
      'src/index.ts',
      'src/reports/digest.ts',
    ]);
    const shown = await cli(['show', runId, '--workspace', ws.root]);
    assert.match(shown.out, /Before the run: 2 type error\(s\) in the project; pre-existing, not counted/);
    assert.match(shown.out, /pre-existing \(not counted\): src\/index\.ts:\d+ TS2322/);
    assert.match(shown.out, /pre-existing \(not counted\): src\/reports\/digest\.ts:\d+ TS2322/);
  });

  it('a project test that already failed before the run is baselined: the projectTests gate, asked to run the whole suite, passes and names it as not counted', async () => {
    writeFileSync(
      path.join(ws.root, 'test/alreadyBroken.test.ts'),
      "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\ntest('was broken before the run', () => assert.equal(1, 2));\n",
    );
    const r = await cli([
      'run',
      '.tickets/BLOG-5.ticket.json',
      '--workspace',
      ws.root,
      '--model',
      'scripted',
      '--gates',
      'projectTests',
      // The broken test imports nothing the ticket changes: only the whole suite runs it.
      '--all-project-tests',
      '--json',
    ]);
    const { state } = JSON.parse(r.out) as { state: RunState };
    assert.equal(r.code, 0, JSON.stringify(state.finished));
    assert.deepEqual(state.projectTestsBaseline?.failing, ['test/alreadyBroken.test.ts › was broken before the run']);
    const gate = state.gates.find((g) => g.gate === 'projectTests');
    assert.equal(gate?.status, 'passed');
    assert.match(gate?.detail ?? '', /^the whole suite \(\d+ test files\), as the project asks/);
    assert.match(gate?.detail ?? '', /1 case that already failed before the run, not counted/);
    assert.deepEqual(gate?.evidence?.kind === 'projectTests' && gate.evidence.preExisting, [
      'test/alreadyBroken.test.ts › was broken before the run',
    ]);
  });

  it('the Test Reviewer fails the run when it shows, quoting the rendered tests, that a criterion has no test that checks it, even under a "pass" verdict; a quote not in the tests is not evidence', async () => {
    const weakCase = 'accepts perPage of exactly 100';
    const review = (evidence: string, verdict = 'fail') => ({
      verdict,
      claim: `"${weakCase}" names AC2 but checks nothing about it`,
      criteria: [
        { id: 'AC1', covered: true },
        { id: 'AC2', covered: false, claim: 'the case asserts only that true is truthy', evidence },
      ],
    });
    const write = (root: string, id: string) =>
      writeHostileTicket(root, {
        id,
        from: 'BLOG-1',
        coder: [{ 'src/handlers/posts.ts': readFileSync(path.join(root, '.tickets/answers/BLOG-1/attempt2.ts'), 'utf8') }],
        edit: (t) => {
          const cases = (t.testPlan as { files: { cases: { name: string; expect: unknown[] }[] }[] }).files[0]!.cases;
          cases.find((c) => c.name === weakCase)!.expect = [{ kind: 'truthy', actual: 'true' }];
        },
      });
    const withReview = (root: string, ticket: string, answer: unknown) => {
      const script = path.join(root, ticket.replace('.ticket.json', '.script.json'));
      const s = JSON.parse(readFileSync(script, 'utf8')) as Record<string, unknown>;
      writeFileSync(script, JSON.stringify({ ...s, testReviewer: [{ structured: answer }] }));
    };
    const shown = write(ws.root, 'WEAK-1');
    withReview(ws.root, shown, review(`it('[AC2] ${weakCase}'`));
    const r = await cli(['run', shown, '--workspace', ws.root, '--model', 'scripted', '--gates', 'testReview', '--json']);
    const { state } = JSON.parse(r.out) as { state: RunState };
    assert.equal(r.code, 2, JSON.stringify(state.finished));
    assert.equal(state.gates.find((g) => g.gate === 'testReview')?.status, 'failed');
    assert.equal(state.corrections[0]?.request.fact.kind, 'criterionNotCovered');
    assert.match(state.corrections[0].request.fact.detail, /the Test Reviewer shows, quoting the rendered tests, that no test checks AC2/);

    const fresh = copyFixture();
    try {
      const invented = write(fresh.root, 'WEAK-2');
      withReview(fresh.root, invented, review('this text is not in the tests'));
      const r2 = await cli(['run', invented, '--workspace', fresh.root, '--model', 'scripted', '--gates', 'testReview', '--json']);
      const s2 = (JSON.parse(r2.out) as { state: RunState }).state;
      assert.equal(r2.code, 0, JSON.stringify(s2.finished));
      assert.match(s2.gates.find((g) => g.gate === 'testReview')?.detail ?? '', /no machine fact confirms it/);
    } finally {
      fresh.dispose();
    }

    // Hostile: the reviewer says "pass" while quoting the case that checks nothing.
    const again = copyFixture();
    try {
      const contradicted = write(again.root, 'WEAK-3');
      withReview(again.root, contradicted, review(`it('[AC2] ${weakCase}'`, 'pass'));
      const r3 = await cli(['run', contradicted, '--workspace', again.root, '--model', 'scripted', '--gates', 'testReview', '--json']);
      const s3 = (JSON.parse(r3.out) as { state: RunState }).state;
      assert.equal(r3.code, 2, JSON.stringify(s3.finished));
      assert.equal(s3.gates.find((g) => g.gate === 'testReview')?.status, 'failed');
      assert.equal(s3.corrections[0]?.request.fact.kind, 'criterionNotCovered');
    } finally {
      again.dispose();
    }
  });

  for (const [target, why] of [
    ['src/handlers/posts.ts', 'is an existing source file'],
    ['package.json', 'is a configuration file'],
    ['.ticket-runner/x.test.ts', "is inside .ticket-runner/, the run's own records"],
    ['.tickets/HOSTILE-T.ticket.json', 'is a ticket file'],
  ] as const) {
    it(`a test plan that targets ${target} exits 3 before any write`, async () => {
      const ticket = writeHostileTicket(ws.root, {
        id: 'HOSTILE-T',
        from: 'BLOG-1',
        coder: [],
        edit: (t) => {
          (t.testPlan as { files: { path: string }[] }).files[0]!.path = target;
        },
      });
      const before = treeHash(ws.root);
      const r = await cli(['run', ticket, '--workspace', ws.root, '--model', 'scripted']);
      assert.equal(r.code, 3);
      assert.match(r.err, new RegExp(`testPlan\\.files\\[0\\]\\.path "${target.replace(/[.]/g, '\\.')}" ${why.replace(/[.()]/g, '\\$&')}`));
      assert.equal(treeHash(ws.root), before);
      assert.equal(existsSync(path.join(ws.root, '.ticket-runner', 'runs')), false);
    });
  }

  describe('one BLOG-2 run that waits for the operator, taken on from a copy by each test', () => {
    let waiting: ReturnType<typeof copyFixture>;
    let first: { code: number; out: string; err: string };
    let firstState: RunState;
    before(async () => {
      waiting = copyFixture();
      first = await cli([
        'run',
        '.tickets/BLOG-2.ticket.json',
        '--workspace',
        waiting.root,
        '--model',
        'scripted',
        '--gates',
        'none',
        '--json',
      ]);
      firstState = (JSON.parse(first.out) as { state: RunState }).state;
    });
    after(() => waiting.dispose());
    let copy: ReturnType<typeof copyWorkspace>;
    beforeEach(() => {
      copy = copyWorkspace(waiting.root);
    });
    afterEach(() => copy.dispose());

    it("a rendered test left over from an earlier run is this run's oracle, not a pre-existing error: the same ticket run again takes the same route", async () => {
      assert.equal(first.code, 2, JSON.stringify(firstState.finished));
      const r = await cli([
        'run',
        '.tickets/BLOG-2.ticket.json',
        '--workspace',
        copy.root,
        '--model',
        'scripted',
        '--gates',
        'none',
        '--json',
      ]);
      const second = (JSON.parse(r.out) as { state: RunState }).state;
      assert.equal(r.code, 2, JSON.stringify(second.finished));
      assert.ok(
        second.attempts[0]!.diagnostics!.diagnostics.some((d) => d.file === 'test/ticket/BLOG-2.test.ts'),
        "the old test file's errors are there again, and counted",
      );
      assert.ok(!second.baseline!.diagnostics.some((d) => d.file === 'test/ticket/BLOG-2.test.ts'));
      assert.deepEqual([second.attempts[0]!.route?.route, second.attempts[0]!.route?.fact?.kind], ['test', 'testTypeError']);
    });

    it('a correction is shown in full before it is accepted: show and resolve print the diff of the ticket that Accept writes; the rendered test stays a valid target on resume', async () => {
      assert.equal(first.code, 2);
      const { runId } = JSON.parse(first.out) as { runId: string; state: RunState };
      const diff = [
        /Accept would rewrite \.tickets\/BLOG-2\.ticket\.json:/,
        /^\s+-\s+"actual": "postsByTag\('node'\)\.every\(\(post\) => post\.tags\.includes\('node'\)\)",$/m,
        /^\s+\+\s+"actual": "postsByTag\('node'\)\.every\(\(post\) => post\.tags\.some\(\(tag\) => tag\.slug === 'node'\)\)",$/m,
      ];
      const shown = await cli(['show', runId, '--workspace', copy.root]);
      for (const line of diff) assert.match(shown.out, line);
      assert.match(readFileSync(path.join(copy.root, 'test/ticket/BLOG-2.test.ts'), 'utf8'), /^\/\/ Generated by Ticket Runner/);
      const accepted = await cli(['resolve', runId, 'accept', '--workspace', copy.root, '--model', 'scripted', '--gates', 'none']);
      assert.equal(accepted.code, 0, accepted.err);
      for (const line of diff.slice(1)) assert.match(accepted.err, line);
      assert.match(accepted.out, /Accept rewrote \.tickets\/BLOG-2\.ticket\.json:/);
    });
  });
});
