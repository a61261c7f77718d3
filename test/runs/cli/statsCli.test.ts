import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { EXIT, runCli } from '../../../src/cli/main';
import type { RunStats } from '../../../src/core/run/views/stats';
import { BUGGY_POSTS_HANDLER, writeHostileTicket } from '../../support/hostile';
import { answer } from '../../support/rungRuns';
import { copyFixture } from '../../support/tempWorkspace';

async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(args, { out: (s) => out.push(s), err: (s) => err.push(s) }, new AbortController().signal);
  return { code, out: out.join('\n'), err: err.join('\n') };
}

/**
 * `ticket-runner stats` over real runs of the fixture's tickets with their scripts, each run
 * then rolled back so the next starts from the fixture as it is. Every figure follows from the
 * scripts: BLOG-5 passes on its one attempt with no Debugger; BLOG-3's "ticket is wrong" is
 * confirmed and rejected; BLOG-4's "scope is wrong" is confirmed and accepted, then passes;
 * VETO-1's Debugger blames the test with no fact behind it, the guard sends the fix back to the
 * Coder, and the retry (rung 2) passes.
 */
describe("ticket-runner stats over the fixture's runs", function () {
  this.timeout(600_000);
  let ws: ReturnType<typeof copyFixture>;
  let stats: RunStats;
  let table: string;

  before(async () => {
    ws = copyFixture();
    const w = ['--workspace', ws.root];
    const run = async (ticket: string, expected: number) => {
      const r = await cli(['run', ticket, ...w, '--model', 'scripted', '--gates', 'none', '--json']);
      assert.equal(r.code, expected, r.err);
      return (JSON.parse(r.out) as { runId: string }).runId;
    };
    const rollback = async (runId: string) => assert.equal((await cli(['rollback', runId, ...w])).code, EXIT.passed);
    const veto = writeHostileTicket(ws.root, {
      id: 'VETO-1',
      from: 'BLOG-1',
      coder: [{ 'src/handlers/posts.ts': BUGGY_POSTS_HANDLER }, { 'src/handlers/posts.ts': answer(ws.root, 'BLOG-1', 'attempt2.ts') }],
      debugger: [
        {
          kind: 'test',
          claim: 'The test sends perPage as a string.',
          evidence: [{ source: 'testFile', file: 'test/ticket/VETO-1.test.ts', quote: "listPosts({ query: { perPage: '500' } })" }],
          brief: 'Send a number.',
        },
      ],
    });

    await rollback(await run('.tickets/BLOG-5.ticket.json', EXIT.passed));
    const blog3 = await run('.tickets/BLOG-3.ticket.json', EXIT.needsOperator);
    assert.equal((await cli(['resolve', blog3, 'reject', '--reason', 'not now', ...w])).code, EXIT.failed);
    await rollback(blog3);
    const blog4 = await run('.tickets/BLOG-4.ticket.json', EXIT.needsOperator);
    assert.equal((await cli(['resolve', blog4, 'accept', ...w, '--model', 'scripted', '--gates', 'none'])).code, EXIT.passed);
    await rollback(blog4);
    await run(veto, EXIT.passed);

    const json = await cli(['stats', ...w, '--json']);
    assert.equal(json.code, EXIT.passed, json.err);
    stats = JSON.parse(json.out) as RunStats;
    const plain = await cli(['stats', ...w]);
    assert.equal(plain.code, EXIT.passed, plain.err);
    table = plain.out;
  });
  after(() => ws.dispose());

  it('--json: runs, outcomes, the pass rate and the median attempts', () => {
    assert.equal(stats.runs, 4);
    assert.deepEqual(stats.outcomes, { passed: 3, failed: 1, needsOperator: 0, cancelled: 0, error: 0, running: 0 });
    assert.equal(stats.passRate, 0.75);
    assert.deepEqual(stats.attempts, { total: 1 + 1 + 2 + 2, medianPerRun: 1.5 });
    assert.deepEqual([stats.scripted, stats.rolledBack, stats.tickets], [4, 3, 4]);
  });

  it("--json: the routes, the guard's verdicts and its veto, the rungs, the corrections", () => {
    assert.deepEqual(stats.routes, { code: 1, manifest: 1, test: 0, ticket: 1, escalate: 0 });
    assert.deepEqual(stats.guard, { confirmed: 2, abstained: 0, overridden: 1, notNeeded: 0 });
    assert.deepEqual(stats.vetoes, [{ claimed: 'test', route: 'code', count: 1 }]);
    assert.deepEqual(stats.rungs, { '2': 1 });
    assert.deepEqual(stats.corrections, { requested: 2, accepted: 1, rejected: 1, pending: 0 });
  });

  it('--json: the model calls per ticket, as the scripts have them', () => {
    assert.deepEqual(
      stats.byTicket.map((t) => [t.ticketId, t.runs, t.passed, t.calls]),
      [
        ['BLOG-3', 1, 0, 2],
        ['BLOG-4', 1, 1, 3],
        ['BLOG-5', 1, 1, 1],
        ['VETO-1', 1, 1, 3],
      ],
    );
    assert.equal(stats.usage.calls, 9);
    assert.equal(stats.usage.costUsd, 0, 'a scripted replay costs nothing');
    assert.ok(
      stats.byTicket.every((t) => t.inputTokens > 0 && t.outputTokens > 0),
      'the replay counts its tokens',
    );
    assert.equal(
      stats.usage.inputTokens,
      stats.byTicket.reduce((n, t) => n + t.inputTokens, 0),
    );
    assert.equal(stats.perTicket?.tokens, (stats.usage.inputTokens + stats.usage.outputTokens) / 4);
  });

  it('the plain table says the same in words', () => {
    assert.match(table, /^Runs\n {2}4 runs of 4 tickets; 75% passed \(3 of the 4 that stopped\)$/m);
    assert.match(table, /^ {2}back to the Coder: 1$/m);
    assert.match(table, /^ {2}overruled by a check: 1$/m);
    assert.match(table, /^ {2}vetoes: the Debugger blamed the test plan, a check sent it back to the Coder \(1\)$/m);
    assert.match(table, /^ {2}rung 2, a retry with the failure: 1$/m);
    assert.match(table, /^ {2}requested: 2; accepted: 1; rejected: 1; waiting: 0$/m);
    assert.match(table, /^ {2}attempts: 6; median per stopped run: 1\.5$/m);
    assert.match(table, /^ {2}VETO-1 +1 +1 +3 /m);
  });

  it('a damaged log is named and skipped; a torn last line is named and the run read without it', async () => {
    const runs = path.join(ws.root, '.ticket-runner', 'runs');
    mkdirSync(path.join(runs, 'broken'));
    writeFileSync(path.join(runs, 'broken', 'events.jsonl'), '{"not":"an event"}\n{"either":1}\n');
    const r = await cli(['stats', '--workspace', ws.root, '--json']);
    assert.equal(r.code, EXIT.passed, r.err);
    assert.match(r.err, /^warning: run broken skipped: /);
    assert.equal((JSON.parse(r.out) as RunStats).runs, 4);
    // A torn last line: the run is read without it, and warned about.
    appendFileSync(
      path.join(
        runs,
        (JSON.parse((await cli(['list', '--workspace', ws.root, '--json'])).out) as { runId: string }[])[0]!.runId,
        'events.jsonl',
      ),
      '{"type":"run.fini',
    );
    const torn = await cli(['stats', '--workspace', ws.root]);
    assert.match(torn.err, /its log is torn/);
  });

  it('an empty workspace says there are no runs yet; --json has runs: 0', async () => {
    const empty = copyFixture();
    try {
      assert.match((await cli(['stats', '--workspace', empty.root])).out, /^No runs yet\. Start one with: ticket-runner run/);
      const j = JSON.parse((await cli(['stats', '--workspace', empty.root, '--json'])).out) as RunStats;
      assert.deepEqual([j.runs, j.passRate, j.attempts.medianPerRun, j.perTicket], [0, null, null, null]);
    } finally {
      empty.dispose();
    }
  });
});
