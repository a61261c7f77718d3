import { strict as assert } from 'node:assert';
import { reduceRun } from '../../../src/core/run/reducer';
import { recorded } from '../../support/recordedRuns';
import { RunEvent } from '../../../src/core/schema/events';
import { announcement, OPEN_RUN, ROLL_BACK } from '../../../src/vscode/announcement';

describe('what the editor says when a run ends', () => {
  it('a cancelled run that left written files says how many and offers to roll them back', () => {
    const { events } = recorded('BLOG-1');
    const cut = events.slice(
      0,
      events.findIndex((e) => e.type === 'router.routed'),
    );
    const last = cut[cut.length - 1]!;
    const finished = RunEvent.parse({
      runId: last.runId,
      seq: last.seq + 1,
      ts: last.ts,
      type: 'run.finished',
      outcome: 'cancelled',
      reason: { kind: 'cancelled' },
      attempts: 1,
    });
    const state = reduceRun(last.runId, [...cut, finished]);
    assert.equal(state.status, 'cancelled');
    const said = announcement(state, 2);
    assert.equal(said.level, 'warning');
    assert.match(said.text, /^BLOG-1: .*cancel.*It left 2 changed files\.$/);
    assert.deepEqual(said.actions, [OPEN_RUN, ROLL_BACK]);
    assert.deepEqual(announcement(state, 0).actions, [OPEN_RUN], 'nothing to roll back: no offer');
  });

  it('a passed run, and a run waiting for the operator, do not offer a roll back', () => {
    const passed = recorded('BLOG-1').state;
    assert.equal(passed.status, 'passed');
    assert.deepEqual(announcement(passed, 3), { level: 'info', text: announcement(passed, 0).text, actions: [OPEN_RUN] });
    const waiting = recorded('BLOG-3').state;
    assert.equal(waiting.status, 'needsOperator');
    assert.deepEqual(announcement(waiting, 3).actions, []);
    assert.match(announcement(passed, 0).text, /\(recorded sample, not a live model\)$/);
  });

  it('a run waiting for a decision is said until the decision, without the request id, and closes by itself then', () => {
    const waiting = recorded('BLOG-3').state;
    const said = announcement(waiting, 0);
    assert.equal(said.untilDecided, true, 'shown as a notice that settles when the decision is made');
    assert.deepEqual(said.actions, [], 'a notice that closes by itself has no buttons');
    assert.match(
      said.text,
      /^BLOG-3: waiting for your decision: correction proposed: the ticket is wrong \(recorded sample, not a live model\)\. Accept or reject it in the run view\.$/,
    );
    assert.ok(!said.text.includes(waiting.corrections[0]!.request.id));
    assert.equal(announcement(recorded('BLOG-1').state, 0).untilDecided, undefined);
  });
});
