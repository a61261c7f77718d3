import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { RunEvent } from '../../../src/core/schema/events';
import { BUGGY_POSTS_HANDLER, writeHostileTicket } from '../../support/hostile';
import { EDITOR_TOOL } from '../../../src/core/stages/coder/editorTool';
import { RUN_TESTS_TOOL } from '../../../src/core/stages/coder/runTestsTool';
import { coderTextByAttempt, loadEvents, writeScript } from '../../support/rungRuns';
import { runTicket } from '../../support/scenario';
import { copyFixture, FIXTURE } from '../../support/tempWorkspace';

/**
 * A ticket judged by a test its author wrote, with no rendered test: BLOG-1's two criteria as a
 * node:test file in blog-api. The right answer passes; a Coder that edits the file, skips one of
 * its cases or deletes it never does, and the log says why.
 */

const AUTHORED = 'test/perPage.test.ts';
const AUTHORED_TEST = `import { test } from 'node:test';
import assert from 'node:assert/strict';
import { listPosts } from '../src/handlers/posts';

test('rejects perPage above 100', () => {
  const res = listPosts({ query: { perPage: '500' } });
  assert.equal(res.status, 400);
  assert.deepEqual(res.body, { error: 'perPage max is 100' });
});

test('accepts perPage of exactly 100', () => {
  const res = listPosts({ query: { perPage: '100' } });
  assert.equal(res.status, 200);
  assert.equal((res.body as { items: unknown[] }).items.length, 100);
});
`;
/** A second authored file, held out: the Coder never sees it. */
const HELD = 'test/perPage.more.test.ts';
const HELD_TEST = `import { test } from 'node:test';
import assert from 'node:assert/strict';
import { listPosts } from '../src/handlers/posts';

test('rejects perPage of 101', () => {
  assert.equal(listPosts({ query: { perPage: '101' } }).status, 400);
});
`;
const RIGHT = readFileSync(path.join(FIXTURE, '.tickets', 'answers', 'BLOG-1', 'attempt2.ts'), 'utf8');

/** Rejects only the value the visible test sends: the held-out file catches it. */
const TOO_NARROW = RIGHT.replace('requested > MAX_PER_PAGE', 'requested === 500');

/** The buggy handler, and, as the test imports it, the authored test rewritten with no assertion left. */
const EDITS_THE_TEST = `import { writeFileSync } from 'node:fs';
writeFileSync('${AUTHORED}', "import { test } from 'node:test';\\ntest('rejects perPage above 100', () => {});\\ntest('accepts perPage of exactly 100', () => {});\\n");
${BUGGY_POSTS_HANDLER}`;

/** The same attack spelled another way, so that the repeat guard does not take the second attempt. */
const EDITS_THE_TEST_AGAIN = EDITS_THE_TEST.replace("import { writeFileSync } from 'node:fs';", "import * as fs from 'node:fs';").replace(
  'writeFileSync(',
  'fs.writeFileSync(',
);

/** The buggy handler, and, as the test imports it, the authored test deleted. */
const DELETES_THE_TEST = `import { unlinkSync } from 'node:fs';
unlinkSync('${AUTHORED}');
${BUGGY_POSTS_HANDLER}`;

/** Ends the test process with status 0 as the authored test imports it: the file's cases vanish from the report. */
const EXITS_AT_IMPORT = `process.exit(0);
${BUGGY_POSTS_HANDLER}`;

/** A test written first: BLOG-14's module does not exist until the Coder writes it. */
const WRITTEN_FIRST = 'test/pathSegments.test.ts';
const WRITTEN_FIRST_TEST = `import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { pathSegments } from '../src/utils/pathSegments';

describe('pathSegments', () => {
  it('splits a bare path', () => {
    assert.deepEqual(pathSegments('/posts/42/'), ['posts', '42']);
  });
  it('takes the path of an https URL', () => {
    assert.deepEqual(pathSegments('https://blog.example/posts/7'), ['posts', '7']);
  });
});
`;
const SEGMENTS_RIGHT = readFileSync(path.join(FIXTURE, '.tickets', 'answers', 'BLOG-14', 'attempt2.ts'), 'utf8');

/** Right for a bare path, and ends the test process, status 0, when handed a URL: the second case vanishes from the report. */
const SEGMENTS_VANISH = `export function pathSegments(url: string): string[] {
  if (url.includes('://')) process.exit(0);
  return url.split('/').filter((s) => s !== '');
}
`;

/** The right handler, which fails with the text of every test file named as the visible one when the tests load it: what a run_tests call would show. */
const PRINTS_THE_TESTS = `import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
const dir = path.join(__dirname, '../../test');
throw new Error(readdirSync(dir).filter((f) => f.startsWith('perPage')).map((f) => readFileSync(path.join(dir, f), 'utf8')).join('\\n'));
${RIGHT}`;

/** The authored test with its first case wrong: a status its subject's declared type (a number) cannot hold, a type error there before any code was written. */
const EXPECTS_A_STRING = AUTHORED_TEST.replace(
  '  assert.equal(res.status, 400);',
  "  const status: string = res.status;\n  assert.equal(status, '400');",
);

/** The Debugger's claim that the authored test is wrong. */
const blamesTheTest = {
  kind: 'test',
  claim: 'The test expects the status as a string; listPosts answers a number.',
  evidence: [{ source: 'testFile', file: AUTHORED, quote: 'const status: string = res.status;' }],
  brief: 'The test is to expect the number 400.',
  avoid: [],
};

const blamesTheCode = {
  kind: 'code',
  claim: 'The guard reads the clamped perPage.',
  evidence: [{ source: 'implementation', file: 'src/handlers/posts.ts', quote: 'if (perPage > MAX_PER_PAGE) {' }],
  brief: 'Check the raw perPage.',
};

describe('a test the author wrote, as the oracle', function () {
  this.timeout(300_000);
  let ws: ReturnType<typeof copyFixture>;
  beforeEach(() => {
    ws = copyFixture();
    writeFileSync(path.join(ws.root, AUTHORED), AUTHORED_TEST);
  });
  afterEach(() => ws.dispose());

  /** A ticket from BLOG-1 whose only test is the authored file, answered by `coder` (one per attempt). */
  const authoredTicket = (id: string, ...coder: Record<string, string>[]) =>
    writeHostileTicket(ws.root, {
      id,
      from: 'BLOG-1',
      coder,
      debugger: coder.map(() => blamesTheCode),
      edit: (t) => {
        t.testPlan = { authored: [AUTHORED] };
      },
    });
  const run = (id: string, wire = {}, attempts = 1) => runTicket(ws.root, id, { attempts, gates: { enabled: [] }, wire });
  const events = (runId: string) => loadEvents(ws.root, runId);

  it('the right answer passes, judged by every case the file holds, listed before the Coder ran', async () => {
    authoredTicket('AUTH-1', { 'src/handlers/posts.ts': RIGHT });
    const { state, runId } = await run('AUTH-1');
    assert.equal(state.status, 'passed', JSON.stringify(state.finished));
    const listed = (await events(runId)).find((e): e is Extract<RunEvent, { type: 'authored.listed' }> => e.type === 'authored.listed');
    assert.deepEqual(
      listed?.cases.map((c) => `${c.file} ${c.name}`),
      [`${AUTHORED} rejects perPage above 100`, `${AUTHORED} accepts perPage of exactly 100`],
    );
    assert.equal(readFileSync(path.join(ws.root, AUTHORED), 'utf8'), AUTHORED_TEST);
  });

  it('a held-out authored file: the Coder never reads it, a right answer passes it, a fix as narrow as the visible test does not', async () => {
    assert.notEqual(TOO_NARROW, RIGHT);
    writeFileSync(path.join(ws.root, HELD), HELD_TEST);
    const heldOut = (t: Record<string, unknown>) => {
      t.testPlan = { authored: [AUTHORED, { path: HELD, heldOut: true }] };
    };
    writeHostileTicket(ws.root, { id: 'AUTH-6', from: 'BLOG-1', coder: [{ 'src/handlers/posts.ts': RIGHT }], edit: heldOut });
    const right = await run('AUTH-6');
    assert.equal(right.state.status, 'passed', JSON.stringify(right.state.finished));
    const rightEvents = await events(right.runId);
    const judged = rightEvents.flatMap((e) => (e.type === 'heldOut.ran' ? [e.result] : []));
    assert.deepEqual(
      judged.map((r) => [r.status, r.cases.map((c) => c.name)]),
      [['passed', ['rejects perPage of 101']]],
    );
    for (const text of (await coderTextByAttempt(ws.root, right.runId, rightEvents)).values()) {
      assert.ok(!text.includes(HELD) && !text.includes('perPage of 101'), 'the Coder read the held-out file');
    }

    writeHostileTicket(ws.root, {
      id: 'AUTH-7',
      from: 'BLOG-1',
      coder: [{ 'src/handlers/posts.ts': TOO_NARROW }],
      debugger: [blamesTheCode],
      edit: heldOut,
    });
    const narrow = await run('AUTH-7');
    assert.notEqual(narrow.state.status, 'passed');
    assert.equal(narrow.state.attempts[0]!.heldOut?.status, 'failed');
  });

  it("a held-out authored file is off disk while the Coder works: its editor's view and a run_tests call show none of it, the log still judges it, and the run's end puts it back", async () => {
    writeFileSync(path.join(ws.root, HELD), HELD_TEST);
    writeHostileTicket(ws.root, {
      id: 'AUTH-11',
      from: 'BLOG-1',
      coder: [],
      edit: (t) => {
        t.testPlan = { authored: [AUTHORED, { path: HELD, heldOut: true }] };
      },
    });
    writeScript(ws.root, 'AUTH-11', {
      coder: [
        {
          expect: { attempt: 1, promptIncludes: [] },
          toolCalls: [
            { name: EDITOR_TOOL, input: { command: 'view', path: HELD } },
            { name: EDITOR_TOOL, input: { command: 'view', path: 'test' } },
            { name: RUN_TESTS_TOOL, input: { files: [{ path: 'src/handlers/posts.ts', content: PRINTS_THE_TESTS }] } },
          ],
        },
        { expect: { attempt: 1, promptIncludes: [] }, files: { 'src/handlers/posts.ts': RIGHT } },
      ],
    });
    const { state, runId } = await run('AUTH-11');
    assert.equal(state.status, 'passed', JSON.stringify(state.finished));
    const all = await events(runId);
    const told = await coderTextByAttempt(ws.root, runId, all);
    // The run_tests call ran the printing code: the visible test's text is in its answer, the held-out one's is not.
    assert.ok(told.get(1)!.includes("test('accepts perPage of exactly 100'"), told.get(1));
    assert.ok(!told.get(1)!.includes('perPage of 101'), told.get(1));
    assert.deepEqual(
      all.flatMap((e) => (e.type === 'heldOut.ran' ? [[e.result.status, e.result.cases.map((c) => c.name)]] : [])),
      [['passed', ['rejects perPage of 101']]],
    );
    assert.equal(readFileSync(path.join(ws.root, HELD), 'utf8'), HELD_TEST);
  });

  it('a Coder that writes the authored test with a case skipped: the write is refused, and the wrong code fails', async () => {
    const skipped = AUTHORED_TEST.replace("test('rejects perPage above 100'", "test.skip('rejects perPage above 100'");
    authoredTicket('AUTH-2', { [AUTHORED]: skipped, 'src/handlers/posts.ts': BUGGY_POSTS_HANDLER });
    const { state } = await run('AUTH-2');
    assert.notEqual(state.status, 'passed');
    const a = state.attempts[0]!;
    assert.ok(
      a.refused.some((r) => r.path === AUTHORED),
      JSON.stringify(a.refused),
    );
    assert.equal(a.status, 'failed');
    assert.equal(readFileSync(path.join(ws.root, AUTHORED), 'utf8'), AUTHORED_TEST);
  });

  it('code that edits the authored test as it is imported, with no OS sandbox: every attempt tampered, the file restored, never passed', async () => {
    // The second attempt would run the edited file, which cannot fail, were the first one's edit left in place.
    authoredTicket('AUTH-3', { 'src/handlers/posts.ts': EDITS_THE_TEST }, { 'src/handlers/posts.ts': EDITS_THE_TEST_AGAIN });
    const { state } = await run('AUTH-3', { withoutSandbox: 'the oracle check alone' }, 2);
    assert.notEqual(state.status, 'passed');
    assert.equal(state.attempts.length, 2);
    for (const a of state.attempts) {
      assert.equal(a.status, 'failed');
      assert.ok(
        a.tampered.some((t) => t.path === AUTHORED),
        JSON.stringify(a.tampered),
      );
    }
    assert.equal(readFileSync(path.join(ws.root, AUTHORED), 'utf8'), AUTHORED_TEST);
  });

  it('code that deletes the authored test as it is imported, with no OS sandbox: recorded as deleted, put back, never passed', async () => {
    authoredTicket('AUTH-4', { 'src/handlers/posts.ts': DELETES_THE_TEST });
    const { state, runId } = await run('AUTH-4', { withoutSandbox: 'the oracle check alone' });
    assert.notEqual(state.status, 'passed');
    assert.equal(state.attempts[0]!.status, 'failed');
    const deleted = (await events(runId)).flatMap((e) => (e.type === 'oracle.tampered' ? e.files : []));
    assert.ok(
      deleted.some((t) => t.path === AUTHORED && t.actual === null),
      JSON.stringify(deleted),
    );
    assert.ok(existsSync(path.join(ws.root, AUTHORED)));
    assert.equal(readFileSync(path.join(ws.root, AUTHORED), 'utf8'), AUTHORED_TEST);
  });

  it('code that ends the test process as it is imported: the listed cases vanish, and the run says which', async () => {
    authoredTicket('AUTH-8', { 'src/handlers/posts.ts': EXITS_AT_IMPORT });
    const { state, runId } = await run('AUTH-8');
    assert.notEqual(state.status, 'passed');
    assert.equal(state.attempts[0]!.status, 'failed');
    const ran = (await events(runId)).flatMap((e) => (e.type === 'tests.ran' ? [e.result] : []));
    assert.ok(ran.length > 0 && ran.every((r) => r.status !== 'passed'));
    assert.ok(
      ran.some((r) => /test\/perPage\.test\.ts › rejects perPage above 100: not run/.test(r.output)),
      ran.map((r) => r.output).join('\n---\n'),
    );
  });

  it('a test written first, importing a module the ticket adds: its cases are read from its text, the right answer passes, code that makes one vanish does not', async () => {
    /** BLOG-14 judged by the test written first alone, in a workspace without the module, answered by `answer`. */
    const writtenFirst = (id: string, answer: string) => {
      writeFileSync(path.join(ws.root, WRITTEN_FIRST), WRITTEN_FIRST_TEST);
      writeHostileTicket(ws.root, {
        id,
        from: 'BLOG-14',
        coder: [{ 'src/utils/pathSegments.ts': answer }],
        debugger: [blamesTheCode],
        edit: (t) => {
          t.testPlan = { authored: [WRITTEN_FIRST] };
        },
      });
    };
    writtenFirst('AUTH-9', SEGMENTS_RIGHT);
    const right = await run('AUTH-9');
    assert.equal(right.state.status, 'passed', JSON.stringify(right.state.finished));
    const listed = (await events(right.runId)).find(
      (e): e is Extract<RunEvent, { type: 'authored.listed' }> => e.type === 'authored.listed',
    );
    assert.deepEqual(
      listed?.files.map((f) => [f.path, f.found]),
      [[WRITTEN_FIRST, 'read']],
    );
    assert.deepEqual(
      listed?.cases.map((c) => c.name),
      ['pathSegments > splits a bare path', 'pathSegments > takes the path of an https URL'],
    );

    ws.dispose();
    ws = copyFixture();
    writtenFirst('AUTH-10', SEGMENTS_VANISH);
    const vanished = await run('AUTH-10');
    assert.notEqual(vanished.state.status, 'passed');
    assert.equal(vanished.state.attempts[0]!.status, 'failed');
    const ran = (await events(vanished.runId)).flatMap((e) => (e.type === 'tests.ran' ? [e.result] : []));
    assert.ok(
      ran.some((r) => r.output.includes(`${WRITTEN_FIRST} › pathSegments > takes the path of an https URL: not run`)),
      ran.map((r) => r.output).join('\n---\n'),
    );
  });

  it('an authored test that expects a value its subject cannot hold goes to the operator, who is asked to correct the file by hand', async () => {
    assert.notEqual(EXPECTS_A_STRING, AUTHORED_TEST);
    writeFileSync(path.join(ws.root, AUTHORED), EXPECTS_A_STRING);
    writeHostileTicket(ws.root, {
      id: 'AUTH-12',
      from: 'BLOG-1',
      coder: [{ 'src/handlers/posts.ts': RIGHT }],
      debugger: [blamesTheTest],
      edit: (t) => {
        t.testPlan = { authored: [AUTHORED] };
      },
    });
    const { state, runId } = await run('AUTH-12');
    assert.equal(state.status, 'needsOperator', JSON.stringify(state.finished));
    const all = await events(runId);
    const routed = all.flatMap((e) => (e.type === 'router.routed' ? [[e.route, e.guard.fact?.kind, e.guard.fact?.file]] : []));
    assert.deepEqual(routed, [['test', 'testTypeError', AUTHORED]]);
    const request = all.flatMap((e) => (e.type === 'correction.requested' ? [e.request] : []))[0];
    assert.equal(request?.proposal.kind, 'none', JSON.stringify(request));
    assert.match(
      request.proposal.kind === 'none' ? request.proposal.why : '',
      /^test\/perPage\.test\.ts is a test you wrote, and its case "rejects perPage above 100".*TS2322.*correct the test file by hand/s,
    );
  });

  it('a ticket naming an authored test that is not there stops before any run, naming the file and the fix', async () => {
    authoredTicket('AUTH-5', { 'src/handlers/posts.ts': RIGHT });
    const ticket = JSON.parse(readFileSync(path.join(ws.root, '.tickets', 'AUTH-5.ticket.json'), 'utf8')) as { testPlan: unknown };
    ticket.testPlan = { authored: ['test/missing.test.ts'] };
    writeFileSync(path.join(ws.root, '.tickets', 'AUTH-5.ticket.json'), JSON.stringify(ticket));
    await assert.rejects(
      run('AUTH-5'),
      /testPlan\.authored\[0\] "test\/missing\.test\.ts" does not exist in the workspace\. Write the test file first/,
    );
  });
});
