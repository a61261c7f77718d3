import assert from 'node:assert/strict';
import type { RunEvent } from '../../../src/core/schema/events';
import { ModelScript, ScriptedModel, ScriptExhaustedError, scriptPosition } from '../../../src/node/models/scripted';
import { FileRunStore } from '../../../src/node/store/fileRunStore';
import { runTicket } from '../../support/scenario';
import { copyFixture } from '../../support/tempWorkspace';

describe('scripted model (a test and demo adapter)', () => {
  const script = ModelScript.parse({
    coder: [
      { expect: { attempt: 1 }, text: 'one' },
      { expect: { attempt: 2 }, text: 'two' },
    ],
  });
  const req = (attempt: number) => ({ role: 'coder' as const, attempt, system: 's', messages: [{ role: 'user' as const, content: 'p' }] });
  const signal = () => new AbortController().signal;

  it('says it is scripted', () => {
    const m = new ScriptedModel(script, () => '', 'x.script.json');
    assert.equal(m.info.scripted, true);
    assert.match(m.info.model, /^scripted/);
  });

  it('fails clearly when the script runs out, with an error no stage takes for a bad answer', async () => {
    const m = new ScriptedModel(script, () => '', 'x.script.json');
    assert.equal((await m.complete(req(1), signal())).text, 'one');
    assert.equal((await m.complete(req(2), signal())).text, 'two');
    await assert.rejects(
      m.complete(req(3), signal()),
      (err: unknown) =>
        err instanceof ScriptExhaustedError &&
        /recorded answers in x\.script\.json do not cover this run: it asked the Coder for answer 3 \(attempt 3\), and the recording holds 2/.test(
          err.message,
        ),
    );
  });

  it('fails clearly when a call does not match its recording', async () => {
    const m = new ScriptedModel(script, () => '', 'x.script.json');
    await assert.rejects(m.complete(req(2), signal()), /recorded for attempt 1, and this call is for attempt 2/);
  });

  it('built at a position, reads on from there', async () => {
    const m = new ScriptedModel(script, () => '', 'x.script.json', { coder: 1 });
    assert.equal((await m.complete(req(2), signal())).text, 'two');
    assert.deepEqual(m.remaining(), { coder: 0, debugger: 0, reviewer: 0, testReviewer: 0 });
  });
});

describe('scriptPosition: where a run that goes on from its log reads its script', function () {
  this.timeout(120_000);
  let ws: ReturnType<typeof copyFixture>;
  beforeEach(() => {
    ws = copyFixture();
  });
  afterEach(() => ws.dispose());
  const eventsOf = async (runId: string): Promise<RunEvent[]> => (await new FileRunStore(ws.root).load(runId)).events;

  it('an interrupted run: the calls before its last ended step; those of the step cut short are read again', async () => {
    const { runId, state } = await runTicket(ws.root, 'BLOG-1');
    assert.equal(state.status, 'passed');
    const events = await eventsOf(runId);
    // As if the process died right after attempt 2's Coder answered: attempt 1 ended at its route.
    const cut = events.findIndex((e) => e.type === 'coder.attempted' && e.attempt === 2);
    assert.ok(cut > 0);
    const interrupted = events.slice(0, cut + 1);
    assert.equal(
      interrupted.filter((e) => e.type === 'model.called' && e.role === 'coder').length,
      2,
      'the second Coder call is in the log',
    );
    assert.deepEqual(scriptPosition(runId, interrupted), { coder: 1, debugger: 1, reviewer: 0, testReviewer: 0, attemptShift: 0 });
    // Cut after attempt 2's tests passed: its call stands, and a resume from there runs the tests
    // again as attempt 3, so the gates' recorded answers for attempt 2 are asked at attempt 3.
    const atGates = events.slice(0, events.findIndex((e) => e.type === 'tests.ran' && e.attempt === 2) + 1);
    assert.deepEqual(scriptPosition(runId, atGates), { coder: 2, debugger: 1, reviewer: 0, testReviewer: 0, attemptShift: 1 });
  });

  it('a run waiting for the operator: every call it made, since an accepted correction goes on after them', async () => {
    const { runId, state } = await runTicket(ws.root, 'BLOG-3');
    assert.equal(state.status, 'needsOperator');
    const events = await eventsOf(runId);
    const made = { coder: 0, debugger: 0, reviewer: 0, testReviewer: 0 };
    for (const c of state.modelCalls) if (c.role !== 'drafter') made[c.role]++;
    assert.ok(made.coder > 0 && made.debugger > 0);
    assert.deepEqual(scriptPosition(runId, events), { ...made, attemptShift: 0 });
  });
});
