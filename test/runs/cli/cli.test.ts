import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { EXIT, runCli } from '../../../src/cli/main';
import type { RunState } from '../../../src/core/run/reducer';
import { copyFixture } from '../../support/tempWorkspace';

async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(args, { out: (s) => out.push(s), err: (s) => err.push(s) }, new AbortController().signal);
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('ticket-runner CLI', function () {
  this.timeout(60_000);
  let ws: ReturnType<typeof copyFixture>;
  before(() => {
    ws = copyFixture();
  });
  after(() => ws.dispose());

  it('has help for every command', async () => {
    for (const c of ['run', 'show', 'list', 'resolve', 'resume', 'rollback', 'record', 'stats']) {
      const r = await cli([c, '--help']);
      assert.equal(r.code, EXIT.passed);
      assert.match(r.out, new RegExp(`^Usage: ticket-runner ${c}`));
    }
    assert.match((await cli(['--help'])).out, /Exit codes: 0 passed, 1 failed, 2 needs the operator, 3 error/);
  });

  it('says what is wrong with an unknown command or option', async () => {
    const r = await cli(['runn']);
    assert.equal(r.code, EXIT.error);
    assert.match(r.err, /unknown command "runn"/);
    const o = await cli(['list', '--colour']);
    assert.equal(o.code, EXIT.error);
    assert.match(o.err, /Unknown option '--colour'/);
  });

  it('reports a malformed ticket by file, JSON path and expectation, with no stack trace', async () => {
    const file = path.join(ws.root, '.tickets', 'BAD-1.ticket.json');
    const t = JSON.parse(readFileSync(path.join(ws.root, '.tickets', 'BLOG-1.ticket.json'), 'utf8')) as Record<string, unknown>;
    t.id = 'BAD-1';
    t.acceptance = [{ id: 'AC1' }];
    writeFileSync(file, JSON.stringify(t));
    const r = await cli(['run', '.tickets/BAD-1.ticket.json', '--workspace', ws.root]);
    assert.equal(r.code, EXIT.error);
    assert.equal(r.err, 'ticket-runner: .tickets/BAD-1.ticket.json: invalid ticket: at $.acceptance[0].text: missing; expected string');
  });

  describe('one BLOG-3 run that stops for the operator, read by each test', () => {
    // A copy of its own: the run must be the fixture's own BLOG-3, not one over an earlier run's writes.
    let own: ReturnType<typeof copyFixture>;
    let needs: { code: number; out: string; err: string };
    before(async () => {
      own = copyFixture();
      needs = await cli(['run', '.tickets/BLOG-3.ticket.json', '--model', 'scripted', '--workspace', own.root, '--json']);
    });
    after(() => own.dispose());

    it('exits 2 when a run needs the operator, 1 once it is rejected, and lists it', async () => {
      assert.equal(needs.code, EXIT.needsOperator);
      const { runId, state } = JSON.parse(needs.out) as { runId: string; state: { status: string } };
      assert.equal(state.status, 'needsOperator');
      assert.match(needs.err, /sent to you: change the ticket \(confirmed by a check\)/, 'progress goes to stderr');
      const rejected = await cli(['resolve', runId, 'reject', '--workspace', own.root]);
      assert.equal(rejected.code, EXIT.error);
      assert.match(rejected.err, /a rejection needs a reason/);
      const list = JSON.parse((await cli(['list', '--workspace', own.root, '--json'])).out) as { runId: string; status: string }[];
      assert.deepEqual(
        list.map((r) => [r.runId, r.status]),
        [[runId, 'needsOperator']],
      );
      const done = await cli(['resolve', runId, 'reject', '--reason', 'not now', '--workspace', own.root]);
      assert.equal(done.code, EXIT.failed);
      assert.match(done.out, /Correction .* \[rejected: not now\]/);
    });

    it('BLOG-3 nonexistent field: "ticket is wrong", from the unresolved symbol, with a ticket edit', () => {
      const { state } = JSON.parse(needs.out) as { state: RunState };
      assert.equal(state.status, 'needsOperator');
      assert.deepEqual(
        state.attempts.map((a) => a.route?.route),
        ['ticket'],
      );
      const req = state.corrections[0]!.request;
      assert.deepEqual([req.target, req.fact.kind, req.proposal.kind], ['ticket', 'unresolvedTicketSymbol', 'ticketEdit']);
      assert.equal(state.manifest?.facts.find((f) => f.symbol === 'Post.publishedAt')?.signature, null);
      assert.deepEqual(
        ['coder', 'debugger'].map((role) => state.modelCalls.filter((c) => c.role === role).length),
        [1, 1],
      );
    });

    it("show --prompts prints every model call's whole prompt and raw answer from the run's record", async () => {
      // A rejection makes no model call: this holds before the other test's reject and after it.
      const { runId, state } = JSON.parse(needs.out) as {
        runId: string;
        state: { modelCalls: { role: string; prompt?: string; answer?: string }[] };
      };
      assert.ok(
        state.modelCalls.length >= 2 && state.modelCalls.every((c) => c.prompt && c.answer),
        'every call keeps its prompt and answer',
      );
      const shown = await cli(['show', runId, '--prompts', '--workspace', own.root]);
      assert.equal(shown.code, EXIT.passed);
      const calls = shown.out.split(/^=== /m).slice(1);
      assert.equal(calls.length, state.modelCalls.length);
      assert.match(calls[0]!, /^call 1 of \d+: coder, attempt 1, SCRIPTED model/);
      assert.match(calls[0]!, /--- system ---\nYou are the Coder of Ticket Runner\./);
      assert.match(calls[0]!, /--- user ---\n[\s\S]*BLOG-3/);
      const debuggerCall = calls.find((c) => /^call \d+ of \d+: debugger/.test(c));
      assert.ok(debuggerCall, "the Debugger's call is on record");
      assert.match(debuggerCall, /--- answer \(end\) ---\n[\s\S]*"kind": "ticket"/, 'its raw structured answer, before parsing');
    });
  });

  it('refuses a ticket path that escapes the workspace', async () => {
    const r = await cli(['run', '../outside.ticket.json', '--workspace', ws.root]);
    assert.equal(r.code, EXIT.error);
    assert.match(r.err, /escapes the workspace/);
  });
});
