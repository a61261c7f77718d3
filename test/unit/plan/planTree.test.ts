import assert from 'node:assert/strict';
import { brokenPlanNode, planNode, type PlanNode, type ReadPlan } from '../../../src/core/plan/planTree';
import { reduceRun, type RunState } from '../../../src/core/run/reducer';
import { RunEvent, type PlanLink } from '../../../src/core/schema/events';
import type { Plan } from '../../../src/core/schema/plan';
import { recorded } from '../../support/recordedRuns';

/**
 * The plans view's nodes from real recorded runs (BLOG-1 passed, BLOG-3 waits for a correction),
 * each log rewritten to be a run of the plan's ticket in its round, as `run.started` carries it.
 */

const FILE = '.tickets/TAGS.plan.yaml';
const TAGS: Plan = {
  id: 'TAGS',
  title: 'Tags typed by hand become clean tag lists',
  tickets: [
    { ticket: 'TAGS-1', after: [] },
    { ticket: 'TAGS-2', after: ['TAGS-1'] },
    { ticket: 'TAGS-3', after: [] },
  ],
};
const READ: ReadPlan = {
  file: FILE,
  plan: TAGS,
  tickets: new Map(['TAGS-1', 'TAGS-2', 'TAGS-3'].map((id) => [id, { file: `.tickets/${id}.ticket.yaml`, title: `${id}'s title` }])),
};
const ROUND: PlanLink = { id: 'TAGS', file: FILE, round: '2026-12-07T10:00:00.000Z' };
const nobodyAlive = () => false;

/** A recorded run's log as the run of `ticketId` in the plan's round. */
function planRun(name: 'BLOG-1' | 'BLOG-3', ticketId: string, runId: string): RunState {
  const events = recorded(name).events.map((e) =>
    RunEvent.parse(
      e.type === 'run.started' ? { ...e, runId, ticketId, ticketPath: `.tickets/${ticketId}.ticket.yaml`, plan: ROUND } : { ...e, runId },
    ),
  );
  return reduceRun(runId, events);
}

const row = (n: PlanNode, id: string) => n.children.find((c) => c.label === id)!;

describe('the plans view, as nodes', () => {
  it('a plan that never ran: its tickets in run order, each not run yet, the dependent one after whom it waits', () => {
    const n = planNode(READ, [], nobodyAlive);
    assert.equal(n.label, 'TAGS');
    assert.equal(n.description, 'not run yet');
    assert.equal(n.contextValue, 'plan.notStarted');
    assert.match(n.tooltip!, /^Tags typed by hand become clean tag lists\nTAGS has not run yet/);
    assert.deepEqual(
      n.children.map((c) => c.label),
      ['TAGS-1', 'TAGS-3', 'TAGS-2'],
    );
    assert.equal(row(n, 'TAGS-1').description, 'not run yet');
    assert.equal(row(n, 'TAGS-2').description, 'waits for TAGS-1');
    assert.deepEqual(row(n, 'TAGS-2').opens, { file: '.tickets/TAGS-2.ticket.yaml' }, 'a ticket never run opens its file');
    assert.match(row(n, 'TAGS-2').tooltip!, /^TAGS-2: TAGS-2's title\n.*\nAfter TAGS-1: it starts on the code they left\./);
  });

  it('a passed plan: every ticket passed, with after whom, its time and cost, and a click opens its run', () => {
    const runs = [planRun('BLOG-1', 'TAGS-1', 'r1'), planRun('BLOG-1', 'TAGS-3', 'r2'), planRun('BLOG-1', 'TAGS-2', 'r3')];
    const n = planNode(READ, runs, nobodyAlive);
    assert.equal(n.description, 'passed');
    assert.equal(n.icon, 'pass');
    assert.match(n.tooltip!, /TAGS passed: every ticket passed/);
    assert.deepEqual(
      n.children.map((c) => [c.label, c.icon, c.contextValue]),
      [
        ['TAGS-1', 'pass', 'planTicket.passed'],
        ['TAGS-3', 'pass', 'planTicket.passed'],
        ['TAGS-2', 'pass', 'planTicket.passed'],
      ],
    );
    // What it waits for first; a passed ticket's state is its check, said in its spoken label.
    assert.match(row(n, 'TAGS-2').description!, /^after TAGS-1 · \d+(\.\d)? s · \$0\.00$/);
    assert.match(row(n, 'TAGS-2').accessibleLabel, /^TAGS-2, passed, after TAGS-1, \d+(\.\d)? s, \$0\.00$/);
    assert.match(row(n, 'TAGS-1').description!, /^\d+(\.\d)? s · \$0\.00$/, 'no after for a ticket that waits for none');
    for (const c of n.children) assert.ok(c.description!.length <= 30, `${c.label}'s row fits the sidebar: ${c.description}`);
    assert.deepEqual(row(n, 'TAGS-2').opens, { runId: 'r3' });
    assert.match(row(n, 'TAGS-2').tooltip!, /\nRun r3: 2 attempts, \$0\.00, /);
  });

  it('a ticket waiting for a correction pauses the one after it; the plan says in its tooltip that it waits for the user', () => {
    const runs = [planRun('BLOG-3', 'TAGS-1', 'r1'), planRun('BLOG-1', 'TAGS-3', 'r2')];
    const n = planNode(READ, runs, nobodyAlive);
    assert.equal(n.contextValue, 'plan.paused');
    assert.equal(n.description, 'paused: 1 of 3 passed');
    assert.match(n.tooltip!, /waits? for your decision/);
    assert.match(n.tooltip!, /TAGS is paused: 1 of 3 tickets passed; TAGS-1 waits for your decision/);
    const waiting = row(n, 'TAGS-1');
    assert.equal(waiting.icon, 'question');
    assert.match(waiting.description!, /^waits for you · /, 'short on the row');
    assert.match(waiting.accessibleLabel, /^TAGS-1, waiting for your decision, /, 'whole when spoken');
    const paused = row(n, 'TAGS-2');
    assert.equal(paused.icon, 'debug-pause');
    assert.equal(paused.description, 'paused: TAGS-1 did not pass', 'the words name whom it waits for, once');
    assert.equal(paused.contextValue, 'planTicket.paused');
    assert.match(paused.accessibleLabel, /^TAGS-2, paused: TAGS-1 did not pass$/);
  });

  it('a run whose owner is alive and has not ended is running, and so is the plan', () => {
    const events = recorded('BLOG-1').events;
    const started = events.filter((e) => e.type !== 'run.finished');
    const state = reduceRun(
      'r1',
      started.map((e) =>
        RunEvent.parse(e.type === 'run.started' ? { ...e, runId: 'r1', ticketId: 'TAGS-1', plan: ROUND } : { ...e, runId: 'r1' }),
      ),
    );
    const n = planNode(READ, [state], () => true);
    assert.equal(n.description, 'running: 0 of 3 passed');
    assert.equal(row(n, 'TAGS-1').icon, 'loading~spin');
    assert.equal(n.icon, 'loading~spin');
  });

  it('a plan file that does not validate is one row that says why, and opens the file', () => {
    const n = brokenPlanNode(
      '.tickets/BAD.plan.yaml',
      '.tickets/BAD.plan.yaml: invalid plan: at $.tickets[1].after[0]: TAGS-9 is not a ticket of this plan',
    );
    assert.equal(n.label, 'BAD.plan.yaml');
    assert.equal(n.description, 'invalid plan: at $.tickets[1].after[0]: TAGS-9 is not a ticket of this plan');
    assert.equal(n.contextValue, 'plan.invalid');
    assert.deepEqual(n.opens, { file: '.tickets/BAD.plan.yaml' });
    assert.deepEqual(n.children, []);
  });
});
