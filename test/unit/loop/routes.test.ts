import assert from 'node:assert/strict';
import { coderWrites, diagnosisFor, right, wrong } from '../../fakes/blog1Scripts';
import { callsOf, decide, ofType, pureRun, routesOf, typesOf } from './loopRig';

/**
 * Every route of the router through the core's startRun, on the fakes: the checkers answer as
 * the real ones did (recorded), the model as its script says. The real end-to-end scenario of
 * each route stays in test/runs/scenarios/routes.test.ts (and frameNotScope.test.ts).
 */

/** BLOG-1's failure diagnosed as another stage's, with quotes that are in the inputs but no machine fact behind the claim. */
const blame = (kind: 'manifest' | 'test' | 'ticket', claim: string) => {
  const recorded = diagnosisFor(1);
  return {
    ...recorded,
    structured: { ...(recorded.structured as object), kind, claim, evidence: [{ source: 'testOutput', quote: '200 !== 400' }] },
  };
};
const blamed = (kind: 'manifest' | 'test' | 'ticket', claim: string) => ({
  coder: [coderWrites(1, wrong()), coderWrites(2, right())],
  debugger: [blame(kind, claim)],
});

describe('pure: the router sends each failure to the stage that owns its fix', () => {
  describe('code', () => {
    it('BLOG-1: the failed attempt goes back to the Coder with the brief, and the retry passes', async () => {
      const { state } = await pureRun('BLOG-1');
      assert.equal(state.status, 'passed', JSON.stringify(state.finished));
      assert.deepEqual(state.finished?.reason, { kind: 'testsPassed' });
      assert.deepEqual([callsOf(state, 'coder'), callsOf(state, 'debugger')], [2, 1]);
      const [a1, a2] = state.attempts;
      assert.equal(a1?.tests?.cases.find((c) => c.status === 'failed')?.expected, '400');
      assert.deepEqual([a1?.diagnosis?.kind, a1?.route?.route, a1?.route?.verdict], ['code', 'code', 'notNeeded']);
      assert.match(a2?.brief ?? '', /raw query value/);
      assert.equal(a2?.tests?.status, 'passed');
    });

    it('BLOG-1: the log is whole, run.started first and run.finished last, in order', async () => {
      const { events, runId } = await pureRun('BLOG-1');
      const types = typesOf(events);
      assert.equal(types[0], 'run.started');
      assert.equal(types.at(-1), 'run.finished');
      assert.deepEqual(
        events.map((e) => e.seq),
        events.map((_, i) => i),
      );
      assert.ok(events.every((e) => e.runId === runId));
      for (const t of [
        'manifest.built',
        'baseline.recorded',
        'tests.materialized',
        'coder.attempted',
        'check.diagnosed',
        'check.linted',
        'tests.ran',
        'router.routed',
      ])
        assert.ok(types.includes(t as never), `the log has ${t}`);
      assert.ok(types.indexOf('baseline.recorded') < types.indexOf('tests.materialized'), 'the baseline is taken before the first write');
    });

    it('BLOG-1: the workspace ends with the passing code, and the rendered test is the oracle the run pinned', async () => {
      const { rig, events } = await pureRun('BLOG-1');
      assert.equal(rig.world.workspace.files.get('src/handlers/posts.ts'), right());
      const materialized = ofType(events, 'tests.materialized')[0]!;
      assert.deepEqual(
        materialized.files.map((f) => f.path),
        ['test/ticket/BLOG-1.test.ts'],
      );
      assert.equal(rig.deps.hash(rig.world.workspace.files.get('test/ticket/BLOG-1.test.ts')!), materialized.files[0]!.hash);
    });

    it("BLOG-5: a missing import is fixed by the language service's code fix, with no Debugger call", async () => {
      const { state, rig } = await pureRun('BLOG-5');
      assert.equal(state.status, 'passed', JSON.stringify(state.finished));
      assert.deepEqual([callsOf(state, 'coder'), callsOf(state, 'debugger')], [1, 0]);
      assert.equal(state.attempts[0]?.autofix?.applied[0]?.code, 'TS2304');
      assert.match(
        rig.world.workspace.files.get('src/format/postSummary.ts') ?? '',
        /^import \{ getPosts \} from '\.\.\/store\/postStore';/m,
      );
    });
  });

  describe('test: a type error in the rendered test, confirmed by the guard', () => {
    it('BLOG-2 asks the operator for a corrected test plan, with the TypeScript error as its fact', async () => {
      const { state } = await pureRun('BLOG-2');
      assert.equal(state.status, 'needsOperator');
      assert.deepEqual([state.attempts[0]?.route?.route, state.attempts[0]?.route?.verdict], ['test', 'confirmed']);
      const req = state.corrections[0]!.request;
      assert.deepEqual(
        [req.target, req.fact.kind, req.fact.code, req.fact.file],
        ['testPlan', 'testTypeError', 'TS2345', 'test/ticket/BLOG-2.test.ts'],
      );
      assert.equal(req.proposal.kind, 'testPlan');
      assert.equal(state.finished?.reason.kind, 'correctionRequested');
    });

    it('accepted: the plan is re-rendered, the run resumes from the manifest and passes', async () => {
      const { state, events, rig } = await decide(await pureRun('BLOG-2'), 'accept');
      assert.equal(state.status, 'passed', JSON.stringify(state.finished));
      assert.equal(state.corrections[0]?.status, 'accepted');
      assert.match(rig.world.workspace.files.get('test/ticket/BLOG-2.test.ts') ?? '', /tag\.slug === 'node'/);
      assert.equal(ofType(events, 'run.resumed')[0]?.from, 'manifest');
      assert.equal(ofType(events, 'tests.materialized').length, 2);
      assert.deepEqual([callsOf(state, 'coder'), callsOf(state, 'debugger')], [2, 1]);
    });

    it('rejected: the run ends failed with the request and the reason on record, and cannot be decided again', async () => {
      const first = await pureRun('BLOG-2');
      const { state } = await decide(first, 'reject', { reason: 'the old shape is still wanted' });
      assert.equal(state.status, 'failed');
      assert.deepEqual(state.finished?.reason, {
        kind: 'correctionRejected',
        requestId: first.state.corrections[0]!.request.id,
        reason: 'the old shape is still wanted',
      });
      await assert.rejects(decide(first, 'accept'), /has no pending correction request/);
    });

    it('a rejection with no reason is refused, and the run still waits', async () => {
      const first = await pureRun('BLOG-2');
      await assert.rejects(decide(first, 'reject', { reason: '  ' }), /a rejection needs a reason/);
      const again = await decide(first, 'accept');
      assert.equal(again.state.status, 'passed');
    });

    it('an Accept of a request the operator was not shown is refused and writes nothing', async () => {
      const first = await pureRun('BLOG-2');
      const ticket = first.rig.world.workspace.files.get('.tickets/BLOG-2.ticket.json');
      await assert.rejects(
        decide(first, 'accept', { requestId: 'req-seen-earlier' }),
        /was already decided; nothing to accept: the run now waits on request /,
      );
      assert.equal(first.rig.world.workspace.files.get('.tickets/BLOG-2.ticket.json'), ticket);
      assert.equal(ofType(await first.rig.store.load(first.runId).then((l) => l.events), 'correction.accepted').length, 0);
    });
  });

  describe('manifest: an error the change caused outside the scope', () => {
    it('BLOG-4 asks to add the callers to the scope; accepted, the new manifest holds them and the run passes', async () => {
      const first = await pureRun('BLOG-4');
      const a1 = first.state.attempts[0]!;
      assert.deepEqual([a1.route?.route, a1.route?.verdict, a1.route?.fact?.kind], ['manifest', 'confirmed', 'outsideScopeDiagnostic']);
      assert.deepEqual(first.state.corrections[0]!.request.proposal, {
        kind: 'scopeAddition',
        paths: ['src/handlers/posts.ts', 'src/index.ts'],
      });
      const { state } = await decide(first, 'accept');
      assert.equal(state.status, 'passed', JSON.stringify(state.finished));
      assert.deepEqual(
        state.manifest?.scope.write.map((f) => f.path),
        ['src/store/postStore.ts', 'src/handlers/posts.ts', 'src/index.ts'],
      );
    });
  });

  describe('ticket: a symbol the ticket names does not resolve', () => {
    it('BLOG-3 asks for a ticket edit, from the unresolved symbol', async () => {
      const { state } = await pureRun('BLOG-3');
      assert.equal(state.status, 'needsOperator');
      assert.deepEqual(routesOf(state), ['ticket']);
      const req = state.corrections[0]!.request;
      assert.deepEqual([req.target, req.fact.kind, req.proposal.kind], ['ticket', 'unresolvedTicketSymbol', 'ticketEdit']);
      assert.equal(state.manifest?.facts.find((f) => f.symbol === 'Post.publishedAt')?.signature, null);
      assert.deepEqual([callsOf(state, 'coder'), callsOf(state, 'debugger')], [1, 1]);
    });

    it('BLOG-3 rejected: failed, and the ticket on disk is the one the run started from', async () => {
      const first = await pureRun('BLOG-3');
      const before = first.rig.world.workspace.files.get('.tickets/BLOG-3.ticket.json');
      const { state } = await decide(first, 'reject', { reason: 'the field will come in another ticket' });
      assert.equal(state.finished?.reason.kind, 'correctionRejected');
      assert.equal(first.rig.world.workspace.files.get('.tickets/BLOG-3.ticket.json'), before);
    });
  });

  describe('a claim with no machine fact behind it goes to the code path', () => {
    for (const [kind, claim] of [
      ['manifest', 'src/utils/pagination.ts clamps perPage; it must be in the scope so the clamp can be removed.'],
      ['test', 'The rendered test expects 400 where the handler rightly answers 200.'],
      ['ticket', 'The ticket asks for a limit the pagination helper already enforces.'],
    ] as const) {
      it(`"${kind} is wrong" on BLOG-1: the guard vetoes it, no correction is requested, the Coder retries and passes`, async () => {
        const { state, events } = await pureRun('BLOG-1', { script: blamed(kind, claim) });
        const a1 = state.attempts[0]!;
        assert.deepEqual([a1.diagnosis?.kind, a1.route?.route, a1.route?.verdict], [kind, 'code', 'overridden']);
        assert.equal(state.corrections.length, 0, 'the operator sees only claims a check confirmed');
        assert.equal(ofType(events, 'correction.requested').length, 0);
        assert.equal(state.status, 'passed', JSON.stringify(state.finished));
      });
    }
  });
});
