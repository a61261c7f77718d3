import assert from 'node:assert/strict';
import * as fc from 'fast-check';
import { UserInputError } from '../../../src/core/errors';
import { planProgress } from '../../../src/core/plan/planProgress';
import { formatPlanReport } from '../../../src/core/plan/planReport';
import { runPlan, type PlanRunPorts } from '../../../src/core/plan/planRunner';
import type { RunState } from '../../../src/core/run/reducer';
import type { PlanLink } from '../../../src/core/schema/events';
import type { Plan, PlanTicket } from '../../../src/core/schema/plan';
import { recorded } from '../../support/recordedRuns';

/**
 * The plan runner against an in-memory store whose runs are real ones: BLOG-1's log (passed),
 * BLOG-3's (waiting for the operator's decision on a correction) and BLOG-4's after its
 * correction was accepted (passed), each renamed for the plan's ticket it stands for.
 */

type Outcome = 'passed' | 'failed' | 'waiting' | 'accepted' | 'error' | 'cancelled';

const REAL: Record<Outcome, RunState> = {
  passed: recorded('BLOG-1').state,
  waiting: recorded('BLOG-3').state,
  accepted: recorded('BLOG-4-accepted').state,
  failed: { ...recorded('BLOG-1').state, status: 'failed' },
  error: { ...recorded('BLOG-1').state, status: 'error' },
  cancelled: { ...recorded('BLOG-1').state, status: 'cancelled' },
};

const entry = (ticket: string, ...after: string[]): PlanTicket => ({ ticket, after });
const plan = (...tickets: PlanTicket[]): Plan => ({ id: 'TAGS', title: 'Tags', tickets });
const TAGS = plan(entry('TAGS-1'), entry('TAGS-2', 'TAGS-1'), entry('TAGS-3'));
const FILE = '.tickets/TAGS.plan.yaml';

/** A store of runs, and ports that end each ticket's run as `outcomes` says (its last entry again when it runs more often). */
function fakeHost(outcomes: Record<string, Outcome[]>, runs: RunState[] = []) {
  let clock = 0;
  const ran: string[] = [];
  const said: string[] = [];
  const kept: string[] = [];
  const rolledBack: string[] = [];
  const links: PlanLink[] = [];
  const resumed: string[] = [];
  const alive = new Set<string>();
  const newRun = (id: string, link: PlanLink, outcome: Outcome): RunState => {
    const runId = `run-${String(++clock).padStart(3, '0')}`;
    const state: RunState = {
      ...REAL[outcome],
      runId,
      ticketId: id,
      ticketPath: `.tickets/${id}.ticket.yaml`,
      plan: link,
      rolledBack: false,
    };
    runs.push(state);
    return state;
  };
  const ports: PlanRunPorts = {
    runs: () => Promise.resolve([...runs]),
    alive: (owner) => owner !== undefined && alive.has(String(owner.pid)),
    newRound: () => `round-${String(++clock).padStart(3, '0')}`,
    runTicket: (t, link) => {
      ran.push(t.id);
      links.push(link);
      const list = outcomes[t.id] ?? ['passed'];
      const outcome = list[Math.min(ran.filter((r) => r === t.id).length - 1, list.length - 1)]!;
      return Promise.resolve(newRun(t.id, link, outcome));
    },
    resumeTicket: (runId) => {
      resumed.push(runId);
      const i = runs.findIndex((r) => r.runId === runId);
      runs[i] = { ...REAL.passed, runId, ticketId: runs[i]!.ticketId, plan: runs[i]!.plan, rolledBack: false };
      return Promise.resolve(runs[i]);
    },
    rollBack: (runId) => {
      rolledBack.push(runId);
      const i = runs.findIndex((r) => r.runId === runId);
      runs[i] = { ...runs[i]!, rolledBack: true };
      return Promise.resolve();
    },
    keep: (t) => {
      kept.push(t.id);
      return Promise.resolve(`${t.id} kept`);
    },
    say: (line) => said.push(line),
  };
  return { ports, runs, ran, said, kept, rolledBack, links, resumed, alive };
}

const go = (ports: PlanRunPorts, p: Plan = TAGS, resume = false) =>
  runPlan(ports, { plan: p, file: FILE, resume, signal: new AbortController().signal });

const states = (p: Awaited<ReturnType<typeof go>>) => Object.fromEntries(p.tickets.map((t) => [t.id, t.state]));

describe('running a plan of tickets', () => {
  it('runs each ticket after the tickets it waits for, in one round, and keeps each that passed', async () => {
    const host = fakeHost({});
    const progress = await go(host.ports);
    assert.deepEqual(host.ran, ['TAGS-1', 'TAGS-3', 'TAGS-2']);
    assert.deepEqual(host.kept, ['TAGS-1', 'TAGS-3', 'TAGS-2']);
    assert.equal(new Set(host.links.map((l) => l.round)).size, 1, 'one round');
    assert.deepEqual(host.links[0], { id: 'TAGS', file: FILE, round: host.links[0]!.round });
    assert.equal(progress.verdict, 'passed');
    assert.ok(host.said.includes('TAGS-2 starts on the code TAGS-1 left'), host.said.join('\n'));
  });

  it('a ticket that fails pauses the tickets after it, directly or further down, and not the others', async () => {
    const p = plan(entry('A'), entry('B', 'A'), entry('C', 'B'), entry('D'));
    const host = fakeHost({ A: ['failed'] });
    const progress = await go(host.ports, p);
    assert.deepEqual(host.ran, ['A', 'D']);
    assert.deepEqual(states(progress), { A: 'failed', D: 'passed', B: 'paused', C: 'paused' });
    assert.deepEqual(
      progress.tickets.find((t) => t.id === 'C')!.pausedBy,
      ['A'],
      'the ticket that did not pass, not the paused one between',
    );
    assert.equal(progress.verdict, 'paused');
    assert.deepEqual(host.kept, ['D'], 'nothing is kept of a run that did not pass');
    assert.ok(host.said.includes('A failed; B, C wait for it'), host.said.join('\n'));
    const report = formatPlanReport(progress, FILE);
    assert.match(report, /^TAGS is paused: 1 of 4 tickets passed/);
    assert.match(report, /\n {2}C: paused: A did not pass\n/);
    assert.match(report, /Next: .*ticket-runner plan resume \.tickets\/TAGS\.plan\.yaml$/);
  });

  it('a ticket waiting for a correction pauses its dependents; resume waits until it is settled, then goes on and says what changed', async () => {
    const host = fakeHost({ 'TAGS-1': ['waiting'] });
    const first = await go(host.ports);
    assert.deepEqual(states(first), { 'TAGS-1': 'waiting', 'TAGS-3': 'passed', 'TAGS-2': 'paused' });
    const waitingRun = first.tickets[0]!.run!;
    assert.ok(waitingRun.pendingCorrection, 'the pending correction is named');
    assert.match(
      formatPlanReport(first, FILE),
      new RegExp(`Next: settle TAGS-1's correction \\(ticket-runner resolve ${waitingRun.runId} accept\\|reject\\)`),
    );

    // Resumed before the operator decides: nothing runs, nothing is rolled back.
    const still = await go(host.ports, TAGS, true);
    assert.deepEqual(host.ran, ['TAGS-1', 'TAGS-3']);
    assert.deepEqual(host.rolledBack, []);
    assert.equal(still.verdict, 'paused');

    // The operator accepts: the run goes on to pass, as `resolve accept` makes it.
    const i = host.runs.findIndex((r) => r.runId === waitingRun.runId);
    host.runs[i] = { ...REAL.accepted, runId: waitingRun.runId, ticketId: 'TAGS-1', plan: host.runs[i]!.plan, rolledBack: false };
    const done = await go(host.ports, TAGS, true);
    assert.deepEqual(host.ran, ['TAGS-1', 'TAGS-3', 'TAGS-2']);
    assert.equal(done.verdict, 'passed');
    const corrected = done.tickets.find((t) => t.id === 'TAGS-2')!.upstreamCorrections;
    assert.equal(corrected.length, 1);
    assert.equal(corrected[0]!.ticketId, 'TAGS-1');
    assert.match(
      host.said.find((l) => l.startsWith('TAGS-2 starts'))!,
      /corrected since the plan was written: TAGS-1: scope \+ /,
    );
    assert.match(formatPlanReport(done, FILE), /\n {4}TAGS-1 was corrected: scope \+ /);
  });

  it('resume runs a failed ticket again from the code before its last run, once, and goes on with an interrupted one', async () => {
    const host = fakeHost({ 'TAGS-1': ['error', 'passed'], 'TAGS-3': ['failed'] });
    await go(host.ports);
    const failedRun = host.runs.find((r) => r.ticketId === 'TAGS-1')!.runId;
    const resumed = await go(host.ports, TAGS, true);
    assert.deepEqual(host.rolledBack, [failedRun, host.runs.find((r) => r.ticketId === 'TAGS-3')!.runId]);
    assert.deepEqual(host.ran, ['TAGS-1', 'TAGS-3', 'TAGS-1', 'TAGS-3', 'TAGS-2'], 'TAGS-3 fails again and is not run a third time');
    assert.deepEqual(states(resumed), { 'TAGS-1': 'passed', 'TAGS-3': 'failed', 'TAGS-2': 'passed' });

    const cut = fakeHost({});
    const round = 'round-000';
    cut.runs.push({
      ...REAL.passed,
      runId: 'run-000',
      ticketId: 'TAGS-1',
      plan: { id: 'TAGS', file: FILE, round },
      status: 'running',
      owner: { pid: 7, host: 'h' },
    });
    assert.equal(states(planProgress(TAGS, FILE, cut.runs, cut.ports.alive))['TAGS-1'], 'interrupted');
    await go(cut.ports, TAGS, true);
    assert.deepEqual(cut.resumed, ['run-000']);
    assert.deepEqual(cut.ran, ['TAGS-3', 'TAGS-2'], 'the interrupted run goes on from its log, not from the start');
  });

  it('refuses to start a plan twice, to resume one that never ran, and to run one while its ticket runs', async () => {
    const host = fakeHost({ 'TAGS-1': ['failed'] });
    await assert.rejects(
      go(host.ports, TAGS, true),
      (e: Error) => e instanceof UserInputError && /has not run yet.*plan run/.test(e.message),
    );
    await go(host.ports);
    await assert.rejects(
      go(host.ports),
      (e: Error) => e instanceof UserInputError && /1 of its 3 tickets passed: .*plan resume/.test(e.message),
    );
    const passed = fakeHost({});
    await go(passed.ports);
    await assert.rejects(go(passed.ports), (e: Error) => e instanceof UserInputError && /already passed.*roll back/.test(e.message));
    // Every run rolled back: nothing of the round is left, and the plan starts afresh.
    for (const r of passed.runs) r.rolledBack = true;
    await go(passed.ports);
    assert.equal(passed.ran.length, 6);
    const live = fakeHost({});
    live.alive.add('7');
    live.runs.push({
      ...REAL.passed,
      runId: 'run-000',
      ticketId: 'TAGS-1',
      plan: { id: 'TAGS', file: FILE, round: 'r' },
      status: 'running',
      owner: { pid: 7, host: 'h' },
    });
    await assert.rejects(go(live.ports, TAGS, true), (e: Error) => e instanceof UserInputError && /running now \(TAGS-1\)/.test(e.message));
  });

  it('cancelled, it starts no ticket after the one the cancel stopped', async () => {
    const host = fakeHost({ 'TAGS-1': ['cancelled'] });
    const stop = new AbortController();
    const runTicket = host.ports.runTicket.bind(host.ports);
    host.ports.runTicket = async (t, link, signal) => {
      const end = await runTicket(t, link, signal);
      stop.abort();
      return end;
    };
    const progress = await runPlan(host.ports, { plan: TAGS, file: FILE, resume: false, signal: stop.signal });
    assert.deepEqual(host.ran, ['TAGS-1']);
    assert.deepEqual(host.kept, [], 'a cancelled run is not kept');
    assert.ok(host.said.includes('TAGS-1 cancelled; TAGS-2 waits for it'), host.said.join('\n'));
    assert.equal(progress.tickets.find((t) => t.id === 'TAGS-3')!.state, 'ready', 'TAGS-3 is left to a resume');
  });

  it('reads only the newest round of its own plan, and a rolled-back run as no run', () => {
    const link = (round: string, id = 'TAGS'): PlanLink => ({ id, file: FILE, round });
    const runs: RunState[] = [
      { ...REAL.passed, runId: 'a', ticketId: 'TAGS-1', plan: link('r1') },
      { ...REAL.failed, runId: 'b', ticketId: 'TAGS-1', plan: link('r2') },
      { ...REAL.passed, runId: 'c', ticketId: 'TAGS-3', plan: link('r3', 'OTHER') },
      { ...REAL.passed, runId: 'd', ticketId: 'TAGS-3', plan: link('r2'), rolledBack: true },
      { ...REAL.passed, runId: 'e', ticketId: 'TAGS-3' },
    ];
    const p = planProgress(TAGS, FILE, runs, () => false);
    assert.equal(p.round, 'r2');
    assert.deepEqual(states(p), { 'TAGS-1': 'failed', 'TAGS-3': 'ready', 'TAGS-2': 'paused' });
  });

  it('never starts a ticket before every ticket it waits for passed, and runs every ticket it can', async () => {
    const planArb = fc
      .integer({ min: 1, max: 8 })
      .chain((n) =>
        fc.tuple(
          fc.tuple(...Array.from({ length: n }, (_, i) => fc.subarray(Array.from({ length: i }, (_, j) => `T${j}`)))),
          fc.tuple(...Array.from({ length: n }, () => fc.constantFrom<Outcome>('passed', 'passed', 'failed', 'waiting', 'error'))),
        ),
      );
    await fc.assert(
      fc.asyncProperty(planArb, async ([afters, outcomes]) => {
        const p = plan(...afters.map((after, i) => entry(`T${i}`, ...after)));
        const host = fakeHost(Object.fromEntries(outcomes.map((o, i) => [`T${i}`, [o]])));
        const progress = await go(host.ports, p);
        const passedBefore = new Set<string>();
        for (const id of host.ran) {
          const t = p.tickets.find((x) => x.ticket === id)!;
          for (const a of t.after) assert.ok(passedBefore.has(a), `${id} ran before ${a} passed`);
          if (outcomes[Number(id.slice(1))] === 'passed') passedBefore.add(id);
        }
        assert.equal(new Set(host.ran).size, host.ran.length, 'each ticket runs once in a round');
        for (const t of progress.tickets) {
          const ranIt = host.ran.includes(t.id);
          assert.equal(
            ranIt,
            t.after.every((a) => passedBefore.has(a)),
            `${t.id} runs exactly when everything it waits for passed`,
          );
          if (!ranIt) assert.equal(t.state, 'paused');
        }
      }),
    );
  });
});
