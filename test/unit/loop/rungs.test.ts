import assert from 'node:assert/strict';
import { FakeClock } from '../../fakes/fakeClock';
import { CODE_ONLY_INSTRUCTION } from '../../../src/core/stages/coder/coderCall';
import { formatRunReport } from '../../../src/core/run/views/report';
import { coderWrites, diagnosisFor, ladderScript, PROSE, proseScript, repeatScript, right, wrong, wrongB } from '../../fakes/blog1Scripts';
import { callsOf, ofType, pureRun } from './loopRig';

/**
 * The recovery rungs that need no real tool (1, 2, 3) and the repeat guard, through startRun
 * on the fakes. Rung 4 runs the tests in a scratch copy, a real tool: it stays in
 * test/runs/scenarios/rungs.test.ts, as do the real-stream cases of rung 1.
 */

const rungsByAttempt = (s: { attempts: { rungs: { rung: number }[] }[] }) => s.attempts.map((a) => a.rungs.map((r) => r.rung));
/** The fixture's script with attempt 1's first answer replaced: the rung-1 retry then writes the recorded code. */
const firstAnswer = (answer: object) => ({
  coder: [
    { expect: { attempt: 1, thinking: false, promptIncludes: [] }, ...answer },
    coderWrites(1, wrong(), { expect: { attempt: 1, thinking: true, promptIncludes: [CODE_ONLY_INSTRUCTION] } }),
    coderWrites(2, right()),
  ],
  debugger: [diagnosisFor(1)],
});

describe('pure: the recovery rungs', () => {
  it('climb 2, 2, then 3 with thinking on, and the thinking attempt passes', async () => {
    const { state, events } = await pureRun('BLOG-1', { script: ladderScript() });
    assert.equal(state.status, 'passed', JSON.stringify(state.finished));
    assert.deepEqual(rungsByAttempt(state), [[], [2], [2], [3]]);
    assert.deepEqual(
      state.attempts.map((a) => a.tests?.status),
      ['failed', 'failed', 'failed', 'passed'],
    );
    assert.deepEqual(
      state.attempts.map((a) => a.route?.route),
      ['code', 'code', 'code', undefined],
    );
    const fired = ofType(events, 'rung.fired');
    assert.deepEqual(
      fired.map((e) => [e.rung, e.trigger, e.thinking]),
      [
        [2, 'verifierFailed', false],
        [2, 'verifierFailed', false],
        [3, 'verifierFailed', true],
      ],
    );
    assert.match(fired[0]!.reason, /attempt 1 failed \(tests failed: 1 passed, 1 failed\); retry 1 of 2/);
    assert.match(fired[2]!.reason, /the retries are spent \(2 retries with thinking off\)/);
    assert.deepEqual(state.budget, { attempts: 4 }, 'the default attempts budget is the ladder length');
  });

  it("each rung's receipt is written before the attempt it starts", async () => {
    const { events } = await pureRun('BLOG-1', { script: ladderScript() });
    for (const r of ofType(events, 'rung.fired')) {
      const started = events.findIndex((e) => e.type === 'model.called' && e.role === 'coder' && e.attempt === r.attempt);
      assert.ok(events.indexOf(r) < started, `the receipt of attempt ${r.attempt} comes before its Coder call`);
    }
  });

  it('the ladder spent: the run stops with retryBudgetSpent, the last attempt diagnosed', async () => {
    const { state } = await pureRun('BLOG-1', { recovery: { retries: 0, thinkingRung: false } });
    assert.deepEqual(state.finished?.reason, { kind: 'retryBudgetSpent', attempts: 1 });
    assert.equal(state.status, 'failed');
    assert.deepEqual([callsOf(state, 'coder'), callsOf(state, 'debugger')], [1, 1]);
  });

  it('with thinking always on there is no rung 3: two retries and the ladder is spent', async () => {
    const script = {
      coder: [
        coderWrites(1, wrong(), { expect: { attempt: 1, thinking: true, promptIncludes: [] } }),
        coderWrites(2, wrongB()),
        coderWrites(3, wrong().replace('if (perPage > MAX_PER_PAGE) {', 'if (perPage > 100) {')),
      ],
      debugger: [1, 2, 3].map(diagnosisFor),
    };
    const { state } = await pureRun('BLOG-1', { script, recovery: { thinking: true } });
    assert.deepEqual(state.finished?.reason, { kind: 'retryBudgetSpent', attempts: 3 });
    assert.deepEqual(rungsByAttempt(state), [[], [2], [2]]);
  });

  it('rung 1 fires at once on prose where code is due, and the retry with thinking and the code-only instruction goes on', async () => {
    const { state, events } = await pureRun('BLOG-1', { script: firstAnswer({ text: PROSE }) });
    assert.equal(state.status, 'passed', JSON.stringify(state.finished));
    const anomaly = ofType(events, 'anomaly.detected')[0];
    assert.ok(anomaly?.urgent && anomaly.signals.some((s) => s.name === 'proseWithoutCode'));
    const fired = ofType(events, 'rung.fired');
    assert.deepEqual(
      fired.map((e) => [e.rung, e.trigger, e.attempt]),
      [
        [1, 'anomaly', 1],
        [2, 'verifierFailed', 2],
      ],
    );
    assert.ok(anomaly.seq < fired[0]!.seq, 'scored, then the rung');
    assert.deepEqual(rungsByAttempt(state), [[1], [2]], 'rung 1 takes no attempt of its own');
    assert.match(formatRunReport(state), /Attempt 1: failed\n\s+rung 1 fired: the answer scored an urgent anomaly/);
  });

  it('rung 1 stops a stream that shows nothing by its start deadline; the stopped call is on record', async () => {
    // Rung 1's deadline is on the run's clock: one that moves a millisecond a read lets it pass.
    const { state, events } = await pureRun('BLOG-1', {
      script: firstAnswer({ fault: 'stall' }),
      recovery: { startDeadlineMs: 30 },
      clock: new FakeClock(Date.UTC(2025, 0, 1), 1),
    });
    assert.equal(state.status, 'passed', JSON.stringify(state.finished));
    assert.deepEqual(
      ofType(events, 'rung.fired').map((e) => [e.rung, e.trigger, e.thinking]),
      [
        [1, 'noStart', true],
        [2, 'verifierFailed', false],
      ],
    );
    const stopped = ofType(events, 'model.called').find((e) => !e.ok);
    assert.match(stopped?.error ?? '', /^stopped: rung 1 stopped the stream \(noStart\)/);
    assert.deepEqual([callsOf(state, 'coder'), callsOf(state, 'debugger')], [3, 1]);
  });

  it("rung 1's start deadline counts from the request's hand-off: a slow write of the prompt to the log is not the model's silence", async () => {
    const clock = new FakeClock(Date.UTC(2025, 0, 1));
    const { state, events } = await pureRun('BLOG-1', {
      recovery: { startDeadlineMs: 100 },
      clock,
      patch: (deps) => {
        const putBlob = deps.store.putBlob.bind(deps.store);
        // A loaded machine's disk: keeping the prompt takes longer than the deadline, in the run's clock and in real time.
        deps.store.putBlob = async (runId, content) => {
          if (content.includes('"role": "coder"')) {
            clock.advance(500);
            await new Promise((r) => setTimeout(r, 60));
          }
          return putBlob(runId, content);
        };
      },
    });
    assert.equal(state.status, 'passed', JSON.stringify(state.finished));
    assert.deepEqual(
      ofType(events, 'rung.fired').map((e) => [e.rung, e.trigger]),
      [[2, 'verifierFailed']],
    );
  });

  it('rung 1 fires once an attempt: a second answer with no code is the attempt, its checks run on the code as it was, and the ladder goes on', async () => {
    const noCode = {
      expect: { attempt: 1, promptIncludes: [] },
      structured: {
        kind: 'code',
        claim: 'The Coder wrote no code: the handler still answers 200.',
        evidence: [{ source: 'testOutput', quote: '200 !== 400' }],
        brief: 'Write the guard on the raw query value.',
        avoid: [],
      },
    };
    const { state, events } = await pureRun('BLOG-1', { script: { ...proseScript(), debugger: [noCode] } });
    assert.deepEqual(
      ofType(events, 'rung.fired').map((e) => [e.rung, e.attempt]),
      [
        [1, 1],
        [2, 2],
      ],
    );
    assert.deepEqual(state.attempts[0]?.written, [], 'no code written');
    assert.equal(state.attempts[0]?.tests?.status, 'failed');
    assert.equal(state.status, 'passed', JSON.stringify(state.finished));
  });
});

describe('pure: the repeat guard', () => {
  it('escalates a Coder that answers the flagged approach again with new names and a comment', async () => {
    const { state, events } = await pureRun('BLOG-1', { script: repeatScript() });
    assert.equal(state.status, 'needsOperator', JSON.stringify(state.finished));
    const routed = ofType(events, 'router.routed');
    assert.deepEqual(
      routed.map((e) => e.route),
      ['code', 'escalate'],
    );
    assert.equal(routed[1]!.guard.fact?.kind, 'repeatedApproach');
    assert.match(routed[1]!.guard.fact?.detail ?? '', /100% the same code structure/);
  });

  it('its request proposes what to make clearer: the criterion the failing test names, quoted from the ticket', async () => {
    const { state, rig } = await pureRun('BLOG-1', { script: repeatScript() });
    const request = state.corrections[0]!.request;
    assert.equal(request.target, 'ticket');
    assert.equal(request.proposal.kind, 'ticketUnclear');
    const p = request.proposal.kind === 'ticketUnclear' ? request.proposal : undefined;
    const ticket = JSON.parse(rig.world.workspace.files.get('.tickets/BLOG-1.ticket.json')!) as {
      acceptance: { id: string; text: string }[];
    };
    assert.equal(p?.where, 'acceptance criterion AC1');
    assert.equal(p?.quote, ticket.acceptance.find((a) => a.id === 'AC1')?.text);
    assert.match(p?.change ?? '', /the Debugger flagged "guarding the clamped perPage value"/);
  });

  it('spends no budget on the escalation: two attempts, two Debugger calls, no third Coder call', async () => {
    const { state } = await pureRun('BLOG-1', { script: repeatScript() });
    assert.deepEqual([state.attempts.length, callsOf(state, 'coder'), callsOf(state, 'debugger')], [2, 2, 2]);
  });

  it("without Tree-sitter, the tokenizer's coarser code structure still sees the disguised repeat", async () => {
    const { state, events } = await pureRun('BLOG-1', { script: repeatScript(), without: ['parser'] });
    assert.deepEqual(
      ofType(events, 'router.routed').map((e) => e.route),
      ['code', 'escalate'],
    );
    assert.equal(ofType(events, 'check.parsed').length, 0, 'no parser, no parse check');
    assert.equal(state.status, 'needsOperator');
  });

  it('a different approach is not a repeat: the second wrong attempt goes back to the Coder', async () => {
    const { events } = await pureRun('BLOG-1', { script: ladderScript() });
    assert.ok(ofType(events, 'router.routed').every((e) => e.route === 'code' && e.guard.fact?.kind !== 'repeatedApproach'));
  });
});
