import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import type { RunEvent } from '../../../src/core/schema/events';
import { EDITOR_TOOL } from '../../../src/core/stages/coder/editorTool';
import { RUN_TESTS_TOOL } from '../../../src/core/stages/coder/runTestsTool';
import { formatRunReport } from '../../../src/core/run/views/report';
import { verdictLines, verdictText } from '../../../src/core/run/views/verdict';
import { copyFixture } from '../../support/tempWorkspace';
import { answer, coderTextByAttempt, light, loadEvents, runTicket, writeScript } from '../../support/rungRuns';

/**
 * Generalize (BLOG-14): the plan's last AC2 case is held out. The Coder never reads it, and an
 * attempt that passes the visible cases still fails when it is only as wide as they are.
 */

const FILE = 'src/utils/pathSegments.ts';
const HELD_OUT_FILE = 'test/ticket/BLOG-14.heldout.test.ts';
/** The held-out case's own text: its input, and its name. */
const HELD_OUT = ["pathSegments('http://localhost:3000/tags/ts/?page=2#top')", 'localhost:3000', 'takes the path of another URL'];

const leaks = (text: string) => HELD_OUT.filter((h) => text.includes(h));

describe('scenarios: generalize, the cases the Coder never sees (BLOG-14)', function () {
  this.timeout(120_000);
  let ws: ReturnType<typeof copyFixture>;
  beforeEach(() => {
    ws = copyFixture();
  });
  afterEach(() => ws.dispose());

  it('a fix too narrow for the held-out case fails attempt 1 as too narrow, on the code route; the general attempt 2 passes', async () => {
    const r = await runTicket(ws.root, 'BLOG-14', light);
    const events = await loadEvents(ws.root, r.runId);
    const s = r.state;
    assert.equal(s.status, 'passed', JSON.stringify(s.finished));
    assert.deepEqual(
      s.attempts.map((a) => [a.n, a.tests?.status, a.heldOut?.status, a.heldOut?.criteria, a.route?.route]),
      [
        [1, 'passed', 'failed', ['AC2'], 'code'],
        [2, 'passed', 'passed', [], undefined],
      ],
    );
    // Every planned held-out case was reported, in the runner that judges the visible ones.
    const ran = events.filter((e): e is Extract<RunEvent, { type: 'heldOut.ran' }> => e.type === 'heldOut.ran');
    assert.deepEqual(
      ran.map((e) => e.result.cases.map((c) => [c.name, c.status])),
      [
        [['BLOG-14 pathSegments > [AC2] takes the path of another URL, without its query or fragment', 'failed']],
        [['BLOG-14 pathSegments > [AC2] takes the path of another URL, without its query or fragment', 'passed']],
      ],
    );
    // The Coder was told the criterion and that the fix is too narrow, never the case.
    const told = await coderTextByAttempt(ws.root, r.runId, events);
    assert.match(told.get(2)!, /too narrow/);
    assert.match(told.get(2)!, /AC2: an absolute URL of any scheme, host and port/);
    for (const [attempt, text] of told) assert.deepEqual(leaks(text), [], `attempt ${attempt}'s prompt`);
    // The held-out file was on disk only while it judged.
    assert.ok(!existsSync(path.join(ws.root, HELD_OUT_FILE)));
    assert.ok(!events.some((e) => e.type === 'files.written' && e.files.some((f) => f.path === HELD_OUT_FILE)));
    assert.match(formatRunReport(s), /held-out cases: failed, 0 passed, 1 failed: too narrow for AC2/);
    assert.ok(verdictLines(s).map(verdictText).includes('Held-out cases: passed (1 of 1, never shown to the Coder)'));
    // What judged the change: the last attempt's runs.
    assert.deepEqual(s.judgedBy, { attempt: 2, visible: 2, heldOut: 1, propertyRuns: 0, heldOutFailed: 0, heldOutCriteria: [] });
  });

  it("a Debugger brief that quotes the held-out case is withheld from the Coder, and a Coder's view of the held-out file is refused", async () => {
    const narrow = answer(ws.root, 'BLOG-14', 'attempt1.ts');
    const general = answer(ws.root, 'BLOG-14', 'attempt2.ts');
    writeScript(ws.root, 'BLOG-14', {
      coder: [
        // The Coder looks for the held-out file, and for the folder that holds it, before it answers.
        {
          expect: { attempt: 1, promptIncludes: [] },
          toolCalls: [
            { name: EDITOR_TOOL, input: { command: 'view', path: HELD_OUT_FILE } },
            { name: EDITOR_TOOL, input: { command: 'view', path: 'test/ticket' } },
          ],
        },
        { expect: { attempt: 1, promptIncludes: [] }, files: { [FILE]: narrow } },
        { expect: { attempt: 2, promptIncludes: ['too narrow'] }, files: { [FILE]: general } },
      ],
      debugger: [
        {
          expect: { attempt: 1, promptIncludes: [] },
          structured: {
            kind: 'code',
            claim: 'pathSegments strips only an https origin, so other absolute URLs keep their origin as segments.',
            evidence: [{ source: 'testOutput', quote: 'The change passes the visible tests but is too narrow' }],
            // Hostile: the brief hands the Coder the held-out input and its expected value.
            brief: "Make pathSegments('http://localhost:3000/tags/ts/?page=2#top') return ['tags', 'ts'].",
            avoid: [],
          },
        },
      ],
    });
    const r = await runTicket(ws.root, 'BLOG-14', light);
    const events = await loadEvents(ws.root, r.runId);
    assert.equal(r.state.status, 'passed', JSON.stringify(r.state.finished));
    const told = await coderTextByAttempt(ws.root, r.runId, events);
    for (const [attempt, text] of told) assert.deepEqual(leaks(text), [], `attempt ${attempt}'s prompt`);
    assert.ok(events.some((e) => e.type === 'heldOut.withheld' && e.from === 'brief' && e.attempt === 2));
    const refused = events.filter((e): e is Extract<RunEvent, { type: 'edit.refused' }> => e.type === 'edit.refused');
    assert.deepEqual(
      refused.map((e) => e.path),
      [HELD_OUT_FILE],
    );
    assert.match(refused[0]!.detail, /not in the ticket's scope/);
    // The folder's listing names only the visible test file.
    assert.match(told.get(1)!, /Files under test\/ticket you may view:\ntest\/ticket\/BLOG-14\.test\.ts/);
  });

  it("code under test that prints every file of the tests' folder, and a run_tests call, give the Coder no held-out text and no held-out verdict", async () => {
    // Hostile: as the tests load it, the code prints every file under the rendered tests' folder.
    const printing = `import { readdirSync, readFileSync } from 'node:fs';\nimport * as path from 'node:path';\nconst dir = path.join(__dirname, '../../test/ticket');\nfor (const f of readdirSync(dir)) console.log(readFileSync(path.join(dir, f), 'utf8'));\n${answer(ws.root, 'BLOG-14', 'attempt1.ts')}`;
    const general = answer(ws.root, 'BLOG-14', 'attempt2.ts');
    writeScript(ws.root, 'BLOG-14', {
      coder: [
        {
          expect: { attempt: 1, promptIncludes: [] },
          toolCalls: [{ name: RUN_TESTS_TOOL, input: { files: [{ path: FILE, content: printing }] } }],
        },
        { expect: { attempt: 1, promptIncludes: [] }, files: { [FILE]: printing } },
        { expect: { attempt: 2, promptIncludes: ['too narrow'] }, files: { [FILE]: general } },
      ],
      debugger: [
        {
          expect: { attempt: 1, promptIncludes: [] },
          structured: {
            kind: 'code',
            claim: 'pathSegments strips only an https origin, so other absolute URLs keep their origin as segments.',
            evidence: [{ source: 'testOutput', quote: 'The change passes the visible tests but is too narrow' }],
            brief: 'Parse the argument as a URL and split its pathname.',
            avoid: [],
          },
        },
      ],
    });
    const r = await runTicket(ws.root, 'BLOG-14', light);
    const events = await loadEvents(ws.root, r.runId);
    assert.equal(r.state.status, 'passed', JSON.stringify(r.state.finished));
    assert.deepEqual(
      r.state.attempts.map((a) => a.heldOut?.status),
      ['failed', 'passed'],
    );
    const told = await coderTextByAttempt(ws.root, r.runId, events);
    for (const [attempt, text] of told) assert.deepEqual(leaks(text), [], `attempt ${attempt}'s prompt`);
    // The run_tests answer judged the visible cases only: it says passed, and nothing of the held-out run.
    assert.match(told.get(1)!, /Checks on the candidate \(a scratch copy; the workspace is unchanged\): passed/);
    assert.doesNotMatch(told.get(1)!, /too narrow|held-out/);
  });

  it('code under test that fails its visible cases with every test file base64-encoded in its message: the Coder reads a run without the held-out file, and no encoding of it', async () => {
    // Hostile: the held-out file is on disk while the command that judges with it runs, and the code spells what it finds there as no literal check can match.
    const smuggles = `import { readdirSync, readFileSync } from 'node:fs';\nimport * as path from 'node:path';\nexport function pathSegments(_url: string): string[] {\n  const dir = path.join(__dirname, '../../test/ticket');\n  throw new Error(readdirSync(dir).map((f) => Buffer.from(readFileSync(path.join(dir, f), 'utf8')).toString('base64')).join(' '));\n}\n`;
    writeScript(ws.root, 'BLOG-14', {
      coder: [
        { expect: { attempt: 1, promptIncludes: [] }, files: { [FILE]: smuggles } },
        { expect: { attempt: 2, promptIncludes: [] }, files: { [FILE]: answer(ws.root, 'BLOG-14', 'attempt2.ts') } },
      ],
      debugger: [
        {
          expect: { attempt: 1, promptIncludes: [] },
          structured: {
            kind: 'code',
            claim: 'pathSegments throws.',
            evidence: [{ source: 'testOutput', quote: 'takes the path of an https URL' }],
            brief: 'Return the segments instead of throwing.',
            avoid: [],
          },
        },
      ],
    });
    const r = await runTicket(ws.root, 'BLOG-14', light);
    const events = await loadEvents(ws.root, r.runId);
    assert.equal(r.state.status, 'passed', JSON.stringify(r.state.finished));
    assert.equal(r.state.attempts[0]?.tests?.status, 'failed');
    const told = await coderTextByAttempt(ws.root, r.runId, events);
    const decoded = [...told.get(2)!.matchAll(/[A-Za-z0-9+/]{40,}={0,2}/g)].map((m) => Buffer.from(m[0], 'base64').toString('utf8'));
    assert.ok(
      decoded.some((d) => d.includes('takes the path of an https URL')),
      'the visible file came through, encoded: the code did print what it found',
    );
    for (const d of decoded) assert.deepEqual(leaks(d), [], 'no encoding of the held-out file reached the Coder');
  });
});
