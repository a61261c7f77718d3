import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { runCli } from '../../../src/cli/main';
import { formatRunReport } from '../../../src/core/run/views/report';
import { CODE_ONLY_INSTRUCTION } from '../../../src/core/stages/coder/coderCall';
import { FileRunStore } from '../../../src/node/store/fileRunStore';
import { loadScriptedModel } from '../../../src/node/models/scripted';
import { copyFixture } from '../../support/tempWorkspace';
import {
  answer,
  blog1Diagnosis,
  calls,
  light,
  loadEvents,
  rungEvents,
  rungsByAttempt,
  runTicket,
  summaryWithImport,
  writeScript,
} from '../../support/rungRuns';

/**
 * The recovery rungs in the real pipeline, with the scripted model on a copy of
 * the blog-api fixture and the real checks. Each script is written here, next to what it
 * proves; the fixture's own scripts are the clean runs.
 */

const POSTS = 'src/handlers/posts.ts';
const SUMMARY = 'src/format/postSummary.ts';
const GUARD = 'if (perPage > MAX_PER_PAGE) {';

describe('scenarios: recovery', function () {
  this.timeout(60_000);
  let ws: ReturnType<typeof copyFixture>;
  beforeEach(() => {
    ws = copyFixture();
  });
  afterEach(() => ws.dispose());

  describe('the rungs', () => {
    it('fire in the design order: 1 (stalled stream), 2, 2, 3 (thinking), 4 (run_tests), then the tests pass', async () => {
      const wrong = answer(ws.root, 'BLOG-1', 'attempt1.ts');
      // Three different wrong approaches, so the repeat guard has no reason to escalate.
      const wrongB = wrong.replace(GUARD, 'if (perPage >= MAX_PER_PAGE + 1) {');
      const wrongC = wrong.replace(GUARD, 'if (perPage > 100) {');
      const right = answer(ws.root, 'BLOG-1', 'attempt2.ts');
      const diagnoses = [1, 2, 3].map((n) => blog1Diagnosis(ws.root, n));
      writeScript(ws.root, 'BLOG-1', {
        coder: [
          { expect: { attempt: 1, thinking: false, promptIncludes: [] }, fault: 'stall' },
          { expect: { attempt: 1, thinking: true, promptIncludes: [CODE_ONLY_INSTRUCTION] }, files: { [POSTS]: wrong } },
          { expect: { attempt: 2, thinking: false, promptIncludes: ['clamps perPage'] }, files: { [POSTS]: wrongB } },
          { expect: { attempt: 3, thinking: false, promptIncludes: [] }, files: { [POSTS]: wrongC } },
          {
            expect: { attempt: 4, thinking: true, promptIncludes: [] },
            text: 'Checking the candidate before answering.',
            toolCalls: [{ name: 'run_tests', input: { files: [{ path: POSTS, content: right }] } }],
          },
          {
            expect: {
              attempt: 4,
              thinking: true,
              promptIncludes: ['Checks on the candidate (a scratch copy; the workspace is unchanged): passed'],
            },
            files: { [POSTS]: right },
          },
        ],
        debugger: diagnoses,
      });

      const { runId, state } = await runTicket(ws.root, 'BLOG-1', { recovery: { startDeadlineMs: 300 } });
      assert.equal(state.status, 'passed', JSON.stringify(state.finished));
      assert.deepEqual(rungsByAttempt(state), [[1], [2], [2], [3, 4]]);
      assert.deepEqual(
        state.attempts.map((a) => a.tests?.status),
        ['failed', 'failed', 'failed', 'passed'],
      );
      assert.deepEqual([calls(state, 'coder'), calls(state, 'debugger')], [6, 3]);
      assert.deepEqual(state.budget, { attempts: 4 }, 'the default attempts budget is the ladder length');

      const events = await loadEvents(ws.root, runId);
      const fired = rungEvents(events);
      assert.deepEqual(
        fired.map((e) => [e.rung, e.trigger, e.thinking]),
        [
          [1, 'noStart', true],
          [2, 'verifierFailed', false],
          [2, 'verifierFailed', false],
          [3, 'verifierFailed', true],
          [4, 'toolCall', undefined],
        ],
      );
      assert.match(fired[0]!.reason, /no text after \d+ ms; retrying once with thinking on and a code-only instruction/);
      assert.match(fired[1]!.reason, /attempt 1 failed \(tests failed: 1 passed, 1 failed\); retry 1 of 2/);
      assert.match(fired[3]!.reason, /the retries are spent \(2 retries with thinking off\)/);
      assert.match(fired[4]!.reason, /run_tests call 1 of 3 on src\/handlers\/posts\.ts: passed: tests passed: 2 passed, 0 failed/);
      // The stopped call is on record with why it stopped; its successor's receipt comes before the next call.
      const stopped = events.find((e) => e.type === 'model.called' && !e.ok);
      assert.match(stopped?.type === 'model.called' ? (stopped.error ?? '') : '', /^stopped: rung 1 stopped the stream \(noStart\)/);
      // The Debugger still diagnosed every failed attempt, and each retry followed its route.
      assert.deepEqual(
        state.attempts.map((a) => a.route?.route),
        ['code', 'code', 'code', undefined],
      );

      // run_tests wrote nothing: attempt 4's write found attempt 3's file in place.
      const a4 = state.attempts[3]!;
      const before = a4.written.find((w) => w.path === POSTS)?.before;
      assert.ok(before);
      assert.equal(await new FileRunStore(ws.root).getBlob(runId, before), wrongC);
      assert.equal(readFileSync(path.join(ws.root, POSTS), 'utf8'), right);

      // `ticket-runner show` tells which rungs fired on each attempt, from the log alone.
      const out: string[] = [];
      assert.equal(
        await runCli(
          ['show', runId, '--workspace', ws.root],
          { out: (s) => out.push(s), err: () => undefined },
          new AbortController().signal,
        ),
        0,
      );
      const report = out.join('\n');
      assert.match(report, /Attempt 1: failed\n\s+rung 1 fired: /);
      assert.match(report, /Attempt 2: failed\n(?:.*\n)*?\s+rung 2 fired: attempt 1 failed/);
      assert.match(report, /Attempt 4: passed\n(?:.*\n)*?\s+rung 3 fired: [^\n]*\n\s+rung 4 fired: run_tests call 1 of 3/);
    });

    it('none fires on a clean run: BLOG-5 passes on attempt 1 with no receipt and no urgent anomaly', async () => {
      const { runId, state } = await runTicket(ws.root, 'BLOG-5');
      assert.equal(state.status, 'passed');
      const events = await loadEvents(ws.root, runId);
      assert.equal(rungEvents(events).length, 0);
      assert.ok(!events.some((e) => e.type === 'anomaly.detected' && e.urgent));
      assert.deepEqual(state.recovery?.retries, 2, 'the policy is on record');
    });

    it('rung 1 stops a stream that is prose past the threshold, and retries with thinking on', async () => {
      const prose = Array.from(
        { length: 40 },
        (_, i) => `Point ${i + 1}: page ${i + 2} would start at post ${i * 20 + 1}, which matters for the summaries.`,
      ).join(' ');
      writeScript(ws.root, 'BLOG-5', {
        coder: [
          { expect: { attempt: 1, thinking: false, promptIncludes: [] }, text: prose, chunkChars: 100 },
          {
            expect: { attempt: 1, thinking: true, promptIncludes: [CODE_ONLY_INSTRUCTION] },
            files: { [SUMMARY]: summaryWithImport(ws.root) },
          },
        ],
      });
      const { runId, state } = await runTicket(ws.root, 'BLOG-5', light);
      assert.equal(state.status, 'passed');
      const [receipt, ...rest] = rungEvents(await loadEvents(ws.root, runId));
      assert.equal(rest.length, 0);
      assert.deepEqual([receipt?.rung, receipt?.trigger, receipt?.thinking], [1, 'proseWithoutCode', true]);
      assert.match(receipt?.reason ?? '', /characters of prose and no code yet/);
      assert.ok(prose.length > 1500 + 100, 'the stream was stopped before its end');
    });

    it('rung 1 leaves alone an answer that started without text (thinking, tool input) and is slow to show any', async () => {
      writeScript(ws.root, 'BLOG-5', { coder: [{ files: { [SUMMARY]: summaryWithImport(ws.root) } }] });
      const scripted = loadScriptedModel(ws.root, '.tickets/BLOG-5.ticket.json');
      // A provider that reports progress before text, past rung 1's start deadline.
      const slow = {
        info: scripted.info,
        complete: async (...[request, signal]: Parameters<typeof scripted.complete>) => {
          request.onActivity?.();
          await new Promise((r) => setTimeout(r, 400));
          return scripted.complete(request, signal);
        },
      };
      const { runId, state } = await runTicket(ws.root, 'BLOG-5', { ...light, modelPort: slow, recovery: { startDeadlineMs: 100 } });
      assert.equal(state.status, 'passed', JSON.stringify(state.finished));
      assert.equal(rungEvents(await loadEvents(ws.root, runId)).length, 0);
    });

    it('rung 1 fires at once on an urgent anomaly in a finished answer (prose where code is due)', async () => {
      writeScript(ws.root, 'BLOG-5', {
        coder: [
          {
            expect: { attempt: 1, thinking: false, promptIncludes: [] },
            text: 'I am not sure which file you want changed. Could you clarify what summarizePage should return?',
          },
          {
            expect: { attempt: 1, thinking: true, promptIncludes: [CODE_ONLY_INSTRUCTION] },
            files: { [SUMMARY]: summaryWithImport(ws.root) },
          },
        ],
      });
      const { runId, state } = await runTicket(ws.root, 'BLOG-5', light);
      assert.equal(state.status, 'passed');
      const events = await loadEvents(ws.root, runId);
      const anomaly = events.find((e) => e.type === 'anomaly.detected');
      assert.ok(anomaly?.type === 'anomaly.detected' && anomaly.urgent && anomaly.signals.some((s) => s.name === 'proseWithoutCode'));
      assert.deepEqual(
        rungEvents(events).map((e) => [e.rung, e.trigger]),
        [[1, 'anomaly']],
      );
      assert.ok(anomaly.seq < rungEvents(events)[0]!.seq, 'scored, then the rung');
      assert.deepEqual(
        state.attempts[0]?.anomalies.map((a) => a.role),
        ['coder'],
      );
      assert.match(
        formatRunReport(state),
        /Attempt 1: passed\n\s+rung 1 fired: the answer scored an urgent anomaly[^\n]*\n\s+anomaly in the coder's answer \(score 1, urgent\): proseWithoutCode: /,
      );
    });

    it('rung 4 answers bad input, refused paths and calls past the limit as tool errors, and the run goes on', async () => {
      writeScript(ws.root, 'BLOG-5', {
        coder: [
          { expect: { attempt: 1, promptIncludes: [] }, toolCalls: [{ name: 'run_tests', input: { files: 'all of them' } }] },
          {
            expect: { attempt: 1, promptIncludes: ['invalid run_tests input: files:'] },
            toolCalls: [{ name: 'run_tests', input: { files: [{ path: 'test/ticket/BLOG-5.test.ts', content: 'rigged' }] } }],
          },
          {
            expect: { attempt: 1, promptIncludes: ['no candidate file may be written', 'tests are read-only'] },
            toolCalls: [{ name: 'run_tests', input: { files: [{ path: SUMMARY, content: 'x' }] } }],
          },
          {
            expect: { attempt: 1, promptIncludes: ['the limit of 2 run_tests call(s) per attempt is reached'] },
            files: { [SUMMARY]: summaryWithImport(ws.root) },
          },
        ],
      });
      const { runId, state } = await runTicket(ws.root, 'BLOG-5', { ...light, recovery: { maxToolCalls: 2 } });
      assert.equal(state.status, 'passed');
      assert.equal(calls(state, 'coder'), 4);
      assert.equal(rungEvents(await loadEvents(ws.root, runId)).length, 0, 'no check ran, so no rung 4 receipt');
      assert.doesNotMatch(readFileSync(path.join(ws.root, 'test/ticket/BLOG-5.test.ts'), 'utf8'), /rigged/);
    });
    it("rung 4's kept scratch copy: what one candidate's code plants or rewrites reaches neither the next call nor the workspace", async () => {
      const right = answer(ws.root, 'BLOG-1', 'attempt2.ts');
      const fsImports = "import { existsSync, readFileSync, writeFileSync } from 'node:fs';\nimport { join } from 'node:path';\n";
      // Runs when the tests import the handler: a file planted beside it, a project test rewritten.
      const planting = `${fsImports}writeFileSync(join(__dirname, '../planted.ts'), 'export const planted = true;\\n');\nconst own = join(__dirname, '../../test/posts.test.ts');\nwriteFileSync(own, readFileSync(own, 'utf8') + '\\n// tampered\\n');\n${right}`;
      // The same answer, failing its import if anything of the last call is still there.
      const checking = `${fsImports}if (existsSync(join(__dirname, '../planted.ts')) || readFileSync(join(__dirname, '../../test/posts.test.ts'), 'utf8').includes('tampered')) throw new Error('a previous candidate leaked into this call');\nvoid writeFileSync;\n${right}`;
      writeScript(ws.root, 'BLOG-1', {
        coder: [
          {
            expect: { attempt: 1, promptIncludes: [] },
            toolCalls: [{ name: 'run_tests', input: { files: [{ path: POSTS, content: planting }] } }],
          },
          {
            expect: { attempt: 1, promptIncludes: ['Checks on the candidate (a scratch copy; the workspace is unchanged): passed'] },
            toolCalls: [{ name: 'run_tests', input: { files: [{ path: POSTS, content: checking }] } }],
          },
          { expect: { attempt: 1, promptIncludes: [] }, files: { [POSTS]: right } },
        ],
      });
      const projectTest = readFileSync(path.join(ws.root, 'test/posts.test.ts'), 'utf8');
      const { runId, state } = await runTicket(ws.root, 'BLOG-1', light);
      assert.equal(state.status, 'passed', JSON.stringify(state.finished));
      const receipts = rungEvents(await loadEvents(ws.root, runId)).map((e) => e.reason);
      assert.equal(receipts.length, 2);
      // The first call planted (its writes did not throw, so its tests passed); the second found nothing of it.
      assert.match(receipts[0]!, /run_tests call 1 of 3 on src\/handlers\/posts\.ts: passed/);
      assert.match(receipts[1]!, /run_tests call 2 of 3 on src\/handlers\/posts\.ts: passed/);
      assert.ok(!existsSync(path.join(ws.root, 'src/planted.ts')), 'the workspace never got the planted file');
      assert.equal(readFileSync(path.join(ws.root, 'test/posts.test.ts'), 'utf8'), projectTest);
    });
  });

  // Every budget's stop is driven through startRun on the fakes (test/unit/loop/budgets.test.ts);
  // the wall-time budget is here too because only real processes show it stops what is running.
  describe('the wall-time budget stops what is running, with its typed reason', () => {
    it('wall time: the watchdog aborts the call in flight, and the log ends with the reason', async () => {
      writeScript(ws.root, 'BLOG-5', { coder: [{ fault: 'stall' }] });
      const started = Date.now();
      // Room for what comes before the Coder's call (the baselines, the rendered tests), then the stall.
      // A loaded machine has taken more than 8 s for that part, so the budget ran out before the call.
      const wallMs = 20_000;
      const { runId, state } = await runTicket(ws.root, 'BLOG-5', {
        ...light,
        budget: { attempts: 4, wallMs },
        recovery: { startDeadlineMs: 150_000 },
      });
      assert.ok(Date.now() - started < 90_000, "the watchdog stopped the stall, not the call's own deadline");
      const reason = state.finished?.reason;
      assert.ok(
        reason?.kind === 'budgetExceeded' && reason.budget === 'wallMs' && reason.limit === wallMs && reason.used >= wallMs,
        JSON.stringify(reason),
      );
      const events = await loadEvents(ws.root, runId);
      assert.equal(events.at(-1)?.type, 'run.finished');
      assert.ok(
        events.some((e) => e.type === 'model.called' && !e.ok),
        'the aborted call is on record',
      );
      assert.equal(rungEvents(events).length, 0, 'a budget stop is not a rung');
    });

    it('wall time: a hung test run is killed where it stands', async () => {
      // The file as it is, and a summarizePage that never returns: nothing of the file is dropped.
      const own = readFileSync(path.join(ws.root, SUMMARY), 'utf8');
      const hangs = `import { getPosts } from '../store/postStore';\n${own}\nexport function summarizePage(page: number): string[] {\n  for (;;) void getPosts({ page, perPage: 20 });\n}\n`;
      writeScript(ws.root, 'BLOG-5', { coder: [{ files: { [SUMMARY]: hangs } }] });
      const started = Date.now();
      // Room for what comes before the Coder's write (the baselines, the rendered tests), then the hang.
      const { runId, state } = await runTicket(ws.root, 'BLOG-5', { ...light, budget: { attempts: 4, wallMs: 25_000 } });
      assert.ok(Date.now() - started < 90_000, 'the test run did not get to its own two-minute limit');
      assert.equal(state.finished?.reason.kind === 'budgetExceeded' && state.finished.reason.budget, 'wallMs');
      const types = (await loadEvents(ws.root, runId)).map((e) => e.type);
      assert.ok(types.includes('coder.attempted') && !types.includes('tests.ran'), types.join(' '));
    });
  });
});
