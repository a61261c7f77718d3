import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { UserInputError } from '../../../src/core/errors';
import { RunLog } from '../../../src/core/run/runLog';
import type { TestCaseResult, TestRunResult } from '../../../src/core/schema/checks';
import type { TestRunRequest } from '../../../src/core/ports/checks';
import { Ticket } from '../../../src/core/schema/ticket';
import type { RunContext } from '../../../src/core/stages/common/context';
import { Oracle } from '../../../src/core/stages/common/oraclePins';
import { expectedCases, listAuthoredCases, listedCases } from '../../../src/core/stages/checks/authoredCases';
import { counted } from '../../../src/core/stages/checks/oracle';
import { buildManifest, ticketPathProblems } from '../../../src/core/stages/manifest/manifestBuilder';
import { validateTicket } from '../../../src/core/stages/authoring/validateTicket';
import { TestPlan } from '../../../src/core/schema/testPlan';
import { criteriaWithoutTest } from '../../../src/core/ticket/untestedCriteria';
import { FakeClock } from '../../fakes/fakeClock';
import { memoryRunStore } from '../../fakes/memoryRunStore';
import { MemoryWorkspace } from '../../fakes/memoryWorkspace';
import { aTestRun } from '../../support/aTestRun';

/**
 * Tests the author wrote, as the oracle: the ticket names them, the run lists their cases once
 * on the project as it is, and a judging run passes only when every listed case passed.
 */

const hash = (s: string) => createHash('sha256').update(s).digest('hex');
const AUTHORED = 'test/slug.test.ts';
const HELD = 'test/slug.more.test.ts';
const SOURCE = "import { test } from 'node:test';\ntest('slugs a title', () => {});\ntest('keeps digits', () => {});\n";

/** A ticket with only authored tests; `authored` as the ticket spells it. */
const aTicket = (authored: unknown[], extra: Record<string, unknown> = {}) =>
  Ticket.parse({
    id: 'T-1',
    title: 't',
    description: 'd',
    scope: { write: ['src/slug.ts'], read: [] },
    acceptance: [{ id: 'AC1', text: 'x' }],
    testPlan: { authored },
    ...extra,
  });

const aWorkspace = (files: Record<string, string> = { [AUTHORED]: SOURCE, [HELD]: SOURCE }) =>
  new MemoryWorkspace(new Map(Object.entries({ 'src/slug.ts': 'export {};\n', ...files })));

const aCase = (file: string | undefined, name: string, status: TestCaseResult['status'] = 'passed'): TestCaseResult => ({
  name,
  status,
  durationMs: 1,
  ...(file === undefined ? {} : { file }),
});

describe('authored tests: the ticket', () => {
  it('takes a path, or a path held out, beside rendered files or instead of them', () => {
    const t = aTicket([AUTHORED, { path: HELD, heldOut: true }]);
    assert.deepEqual(t.testPlan.authored, [AUTHORED, { path: HELD, heldOut: true }]);
    assert.deepEqual(t.testPlan.files, []);
  });

  it('refuses a test plan with neither rendered files nor authored ones', () => {
    assert.throws(() => aTicket([]), /a test plan needs a rendered file in .*files.* or a test file you wrote in .*authored/);
  });

  it('names a missing authored file and how to fix it', async () => {
    const problems = await ticketPathProblems(aTicket(['test/nope.test.ts']), '.tickets/T-1.ticket.json', aWorkspace());
    assert.deepEqual(problems, [
      {
        path: '$.testPlan.authored[0]',
        message:
          'testPlan.authored[0] "test/nope.test.ts" does not exist in the workspace. Write the test file first, or fix the path: the run lists its cases before the Coder starts',
      },
    ]);
    await assert.rejects(
      buildManifest({ ticket: aTicket(['test/nope.test.ts']), ticketPath: '.tickets/T-1.ticket.json', workspace: aWorkspace() }),
      (e: unknown) => e instanceof UserInputError && /does not exist in the workspace/.test(e.message),
    );
  });

  it('refuses an authored file in scope.write, and one that is not named as a test', async () => {
    const ticket = aTicket(['src/slug.check.ts', AUTHORED], { scope: { write: ['src/slug.ts', AUTHORED], read: [] } });
    const problems = await ticketPathProblems(
      ticket,
      '.tickets/T-1.ticket.json',
      aWorkspace({ 'src/slug.check.ts': '', [AUTHORED]: SOURCE }),
    );
    assert.deepEqual(
      problems.map((p) => p.path),
      ['$.testPlan.authored[0]', '$.scope.write[1]'],
    );
    assert.match(problems[0]!.message, /is not named as a test/);
    assert.match(problems[1]!.message, /is a test file you wrote, which the run judges by; tests are read-only/);
  });

  it('a visible authored file is a test file of the manifest; a held-out one is in no list the Coder reads', async () => {
    const m = await buildManifest({
      ticket: aTicket([AUTHORED, { path: HELD, heldOut: true }]),
      ticketPath: '.tickets/T-1.ticket.json',
      workspace: aWorkspace(),
    });
    assert.deepEqual(m.testFiles, [AUTHORED]);
    assert.deepEqual(m.testPlan.authored, [AUTHORED]);
    assert.deepEqual(m.heldOut.authored, [HELD]);
    assert.ok(!JSON.stringify({ ...m, heldOut: undefined }).includes(HELD));
  });

  it('every authored file held out leaves nothing to judge an attempt by first: refused', async () => {
    const problems = await ticketPathProblems(aTicket([{ path: AUTHORED, heldOut: true }]), '.tickets/T-1.ticket.json', aWorkspace());
    assert.deepEqual(
      problems.map((p) => p.path),
      ['$.testPlan'],
    );
    assert.match(problems[0]!.message, /every test of the plan is held out/);
  });
});

/** A run's context over an in-memory workspace and log, whose tests report `report` for any request. */
async function aContext(authored: unknown[], report: TestCaseResult[], files?: Record<string, string>) {
  const workspace = aWorkspace(files);
  const ticket = aTicket(authored);
  const manifest = await buildManifest({ ticket, ticketPath: '.tickets/T-1.ticket.json', workspace });
  const requests: TestRunRequest[] = [];
  const log = new RunLog('r1', memoryRunStore(hash), new FakeClock());
  const tests = {
    run: (r: TestRunRequest): Promise<TestRunResult> => {
      requests.push(r);
      return Promise.resolve(aTestRun(report));
    },
  };
  const ctx = { deps: { workspace, tests, hash }, log, manifest, oracle: new Oracle(hash), signal: new AbortController().signal };
  return { ctx: ctx as unknown as RunContext, requests, workspace };
}

describe('authored tests: the case list', () => {
  const LISTED = [aCase(AUTHORED, 'slugs a title', 'failed'), aCase(AUTHORED, 'keeps digits', 'failed')];

  it('is the runner report of the file on the project as it is, recorded once with the file pinned', async () => {
    const { ctx, requests } = await aContext([AUTHORED], LISTED);
    await listAuthoredCases(ctx);
    assert.deepEqual(
      requests.map((r) => r.files),
      [[AUTHORED]],
    );
    const listed = ctx.log.events.filter((e) => e.type === 'authored.listed');
    assert.equal(listed.length, 1);
    assert.deepEqual(listed[0]!.type === 'authored.listed' && listed[0]!.cases, [
      { file: AUTHORED, name: 'slugs a title' },
      { file: AUTHORED, name: 'keeps digits' },
    ]);
    assert.deepEqual(ctx.oracle!.paths, [AUTHORED]);
    await listAuthoredCases(ctx);
    assert.equal(requests.length, 1, 'a run that has its list does not ask again');
  });

  it('a file that cannot load yet has its cases read from its text, named as the runner reports them, and recorded so', async () => {
    const source = `import { describe, it } from 'node:test';\nimport { slug } from '../src/slugNotYet';\ndescribe('slug', () => {\n  it('lowercases', () => {});\n});\n`;
    const loadFailure = aCase(AUTHORED, AUTHORED, 'failed');
    const { ctx } = await aContext([AUTHORED], [loadFailure], { [AUTHORED]: source });
    await listAuthoredCases(ctx);
    const listed = ctx.log.events.find((e) => e.type === 'authored.listed');
    assert.ok(listed?.type === 'authored.listed');
    assert.deepEqual(listed.cases, [{ file: AUTHORED, name: 'slug > lowercases' }]);
    assert.deepEqual(
      listed.files.map((f) => f.found),
      ['read'],
    );
    const judge = (cases: TestCaseResult[]) => counted(aTestRun(cases, { status: 'passed' }), [], expectedCases(ctx, 'visible'));
    assert.equal(judge([aCase(AUTHORED, 'slug > lowercases')]).status, 'passed');
    const vanished = judge([]);
    assert.equal(vanished.status, 'failed');
    assert.match(vanished.output, /test\/slug\.test\.ts › slug > lowercases: not run/);
  });

  it('a file that cannot load and names a case by an expression stops the run, naming the line and the fix', async () => {
    const source = "import { test } from 'node:test';\nfor (const n of [1, 2]) test(`case ${n}`, () => {});\n";
    const { ctx } = await aContext([AUTHORED], [], { [AUTHORED]: source });
    await assert.rejects(
      listAuthoredCases(ctx),
      (e: unknown) =>
        e instanceof UserInputError &&
        e.message.includes('line 2, test(`case ${n}`') &&
        /name each test and suite with a string literal/.test(e.message),
    );
    assert.ok(!ctx.log.events.some((e) => e.type === 'authored.listed'));
  });

  it('a file the runner reports no case in, whose text declares none, stops the run, naming it', async () => {
    const { ctx } = await aContext([AUTHORED], [], { [AUTHORED]: "import { slug } from '../src/slug';\n" });
    await assert.rejects(
      listAuthoredCases(ctx),
      (e: unknown) => e instanceof UserInputError && e.message.includes(`no case in ${AUTHORED}`),
    );
  });

  it('a case the author left skipped is listed apart and need not pass; a file with only skipped cases stops the run', async () => {
    const { ctx } = await aContext([AUTHORED], [aCase(AUTHORED, 'slugs a title', 'failed'), aCase(AUTHORED, 'keeps digits', 'skipped')]);
    await listAuthoredCases(ctx);
    const listed = ctx.log.events.find((e) => e.type === 'authored.listed');
    assert.ok(listed?.type === 'authored.listed');
    assert.deepEqual(listed.cases, [{ file: AUTHORED, name: 'slugs a title' }]);
    assert.deepEqual(listed.skipped, [{ file: AUTHORED, name: 'keeps digits' }]);
    const judged = counted(
      aTestRun([aCase(AUTHORED, 'slugs a title'), aCase(AUTHORED, 'keeps digits', 'skipped')], { status: 'passed' }),
      [],
      expectedCases(ctx, 'visible'),
    );
    assert.equal(judged.status, 'passed');

    // Read from the text of a file that does not load: the same.
    const text = "import { slug } from '../src/nope';\ntest('slugs a title', () => {});\ntest.skip('keeps digits', () => {});\n";
    const read = await aContext([AUTHORED], [], { [AUTHORED]: text });
    await listAuthoredCases(read.ctx);
    const fromText = read.ctx.log.events.find((e) => e.type === 'authored.listed');
    assert.ok(fromText?.type === 'authored.listed');
    assert.deepEqual(
      [fromText.cases, fromText.skipped],
      [[{ file: AUTHORED, name: 'slugs a title' }], [{ file: AUTHORED, name: 'keeps digits' }]],
    );

    const none = await aContext([AUTHORED], [aCase(AUTHORED, 'slugs a title', 'skipped'), aCase(AUTHORED, 'keeps digits', 'skipped')]);
    await assert.rejects(
      listAuthoredCases(none.ctx),
      (e: unknown) => e instanceof UserInputError && /every case in test\/slug\.test\.ts \(testPlan\.authored\) is skipped/.test(e.message),
    );
  });

  it('a report with no file belongs to the only authored file; with two, it cannot be placed', () => {
    assert.deepEqual(listedCases([aCase(undefined, 'a')], [AUTHORED]), [{ file: AUTHORED, name: 'a', skipped: false }]);
    assert.deepEqual(listedCases([aCase(undefined, 'a')], [AUTHORED, HELD]), []);
    assert.deepEqual(listedCases([aCase('test/other.test.ts', 'a'), aCase(AUTHORED, 'b'), aCase(AUTHORED, 'b')], [AUTHORED]), [
      { file: AUTHORED, name: 'b', skipped: false },
    ]);
  });

  it('a "passed" counts only when every listed case is reported passed: missing, skipped or failed fails, with its name', async () => {
    const { ctx } = await aContext([AUTHORED], LISTED);
    await listAuthoredCases(ctx);
    const expected = expectedCases(ctx, 'visible');
    const judge = (cases: TestCaseResult[]) => counted(aTestRun(cases, { status: 'passed' }), [], expected);
    assert.equal(judge([aCase(AUTHORED, 'slugs a title'), aCase(AUTHORED, 'keeps digits')]).status, 'passed');
    const vanished = judge([aCase(AUTHORED, 'slugs a title')]);
    assert.equal(vanished.status, 'failed');
    assert.match(vanished.output, /test\/slug\.test\.ts › keeps digits: not run/);
    const skipped = judge([aCase(AUTHORED, 'slugs a title'), aCase(AUTHORED, 'keeps digits', 'skipped')]);
    assert.equal(skipped.status, 'failed');
    assert.match(skipped.output, /keeps digits: skipped/);
    assert.equal(judge([aCase(AUTHORED, 'slugs a title'), aCase(AUTHORED, 'keeps digit')]).status, 'failed', 'a renamed case');
  });

  it('the held-out file judges apart: its cases are not among the visible ones', async () => {
    const { ctx } = await aContext([AUTHORED, { path: HELD, heldOut: true }], [...LISTED, aCase(HELD, 'slugs a title', 'failed')]);
    await listAuthoredCases(ctx);
    assert.deepEqual(
      expectedCases(ctx, 'visible').map((c) => c.file),
      [AUTHORED, AUTHORED],
    );
    assert.deepEqual(
      expectedCases(ctx, 'heldOut').map((c) => `${c.file} ${c.name}`),
      [`${HELD} slugs a title`],
    );
  });

  it('with no list in the log, an authored file fails closed', async () => {
    const { ctx } = await aContext([AUTHORED], LISTED);
    const ran = counted(aTestRun([aCase(AUTHORED, 'slugs a title'), aCase(AUTHORED, 'keeps digits')]), [], expectedCases(ctx, 'visible'));
    assert.equal(ran.status, 'failed');
    assert.match(ran.output, /its cases were never listed/);
  });
});

describe('authored tests: validate and the criteria', () => {
  const TWO = [
    { id: 'AC1', text: 'slugs a title' },
    { id: 'AC2', text: 'keeps digits' },
  ];
  const RENDERED_AC1 = {
    path: 'test/ticket/T-1.test.ts',
    suite: 'T-1',
    imports: [{ from: '../../src/slug', names: [] }],
    cases: [{ name: 'slugs', criterion: 'AC1', expect: [{ kind: 'truthy', actual: 'true' }] }],
  };
  const validate = async (testPlan: unknown) => {
    const text = JSON.stringify({ ...aTicket([AUTHORED]), acceptance: TWO, testPlan });
    const v = await validateTicket({ workspace: aWorkspace() }, '.tickets/T-1.ticket.json', text, new AbortController().signal);
    return v.findings.filter((f) => f.path.startsWith('$.testPlan')).map((f) => [f.severity, f.message]);
  };

  it('an authored-only ticket is not warned of criteria with no test: it is told once that which criteria its files check is not checked', async () => {
    assert.deepEqual(await validate({ authored: [AUTHORED] }), [
      [
        'information',
        'no rendered case names AC1, AC2: the tests you wrote are taken to check them, and which criteria they check is not checked (the test reviewer reads the visible ones)',
      ],
    ]);
  });

  it('beside a rendered file, a criterion no rendered case names may be the authored file’s: no warning, and no gate fails on it', async () => {
    const findings = await validate({ files: [RENDERED_AC1], authored: [AUTHORED] });
    assert.deepEqual(
      findings.map(([severity, message]) => [severity, message!.split(':')[0]]),
      [['information', 'no rendered case names AC2']],
    );
    assert.deepEqual(criteriaWithoutTest(TWO, TestPlan.parse({ files: [RENDERED_AC1], authored: [AUTHORED] })), []);
    assert.deepEqual(
      criteriaWithoutTest(TWO, TestPlan.parse({ files: [RENDERED_AC1] })),
      ['AC2'],
      'with no authored file, the warning stays',
    );
    assert.deepEqual(criteriaWithoutTest(TWO, TestPlan.parse({ files: [RENDERED_AC1] }), true), [], 'a held-out authored file counts too');
  });
});
