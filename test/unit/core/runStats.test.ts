import assert from 'node:assert/strict';
import type { RunState } from '../../../src/core/run/reducer';
import { formatRunStats, runStats } from '../../../src/core/run/views/stats';

type Attempt = RunState['attempts'][number];

/** The fields the figures read; the rest of a state does not matter to them. */
function run(ticketId: string, status: RunState['status'], attempts: Partial<Attempt>[] = [], extra: Partial<RunState> = {}): RunState {
  return {
    runId: `${ticketId}-${status}`,
    ticketId,
    status,
    attempts: attempts.map((a, i) => ({ n: i + 1, rungs: [], ...a }) as Attempt),
    corrections: [],
    usage: { calls: 1, inputTokens: 100, outputTokens: 10, costUsd: 0.01, retries: 0 },
    rolledBack: false,
    ...extra,
  } as RunState;
}

const route = (claimed: string | null, to: 'code' | 'test' | 'ticket' | 'manifest' | 'escalate', verdict: string) => ({
  route: { claimed, route: to, verdict, detail: '' },
});

describe('run statistics (runStats)', () => {
  it('a run with no end yet is neither a pass nor a failure, and no attempt count of it is a median', () => {
    const st = runStats([run('A-1', 'passed', [{}]), run('A-2', 'running', [{}, {}, {}, {}, {}])]);
    assert.equal(st.passRate, 1);
    assert.equal(st.outcomes.running, 1);
    assert.deepEqual(st.attempts, { total: 6, medianPerRun: 1 });
  });

  it('a cancelled or erred run counts against the pass rate: only a pass is a pass', () => {
    const st = runStats([run('A-1', 'passed'), run('A-1', 'cancelled'), run('A-1', 'error'), run('A-1', 'needsOperator')]);
    assert.equal(st.passRate, 0.25);
    assert.deepEqual(
      st.byTicket.map((t) => [t.ticketId, t.runs, t.passed]),
      [['A-1', 4, 1]],
    );
  });

  it('counts a veto only where a check overruled the claim, by what was claimed and where it went', () => {
    const st = runStats([
      run('A-1', 'passed', [
        route('test', 'code', 'overridden'),
        route('code', 'code', 'notNeeded'),
        route('ticket', 'code', 'overridden'),
      ]),
      run('A-2', 'failed', [
        route('test', 'code', 'overridden'),
        route('manifest', 'manifest', 'confirmed'),
        route('test', 'test', 'abstained'),
      ]),
    ]);
    assert.deepEqual(st.routes, { code: 4, manifest: 1, test: 1, ticket: 0, escalate: 0 });
    assert.deepEqual(st.guard, { confirmed: 1, abstained: 1, overridden: 3, notNeeded: 1 });
    assert.deepEqual(st.vetoes, [
      { claimed: 'test', route: 'code', count: 2 },
      { claimed: 'ticket', route: 'code', count: 1 },
    ]);
  });

  it('rungs, corrections and cost per ticket add up across runs', () => {
    const rung = (n: number) => ({ rung: n, reason: '' });
    const st = runStats([
      run('B-10', 'passed', [{ rungs: [rung(1), rung(2)] }, { rungs: [rung(4)] }], {
        corrections: [{ status: 'accepted' }, { status: 'rejected' }] as RunState['corrections'],
      }),
      run('B-2', 'failed', [{ rungs: [rung(2), rung(3)] }], {
        corrections: [{ status: 'pending' }] as RunState['corrections'],
        rolledBack: true,
      }),
      run('B-2', 'passed', [], { usage: { calls: 3, inputTokens: 300, outputTokens: 30, costUsd: 0.05, retries: 0 } }),
    ]);
    assert.deepEqual(st.rungs, { '1': 1, '2': 2, '3': 1, '4': 1 });
    assert.deepEqual(st.corrections, { requested: 3, accepted: 1, rejected: 1, pending: 1 });
    assert.deepEqual(
      st.byTicket.map((t) => [t.ticketId, t.runs, t.calls, t.inputTokens]),
      [
        ['B-2', 2, 4, 400],
        ['B-10', 1, 1, 100],
      ],
      'by ticket id, numbers in order',
    );
    assert.equal(st.rolledBack, 1);
    assert.ok(Math.abs(st.usage.costUsd - 0.07) < 1e-12);
    assert.ok(Math.abs(st.perTicket!.costUsd - 0.035) < 1e-12);
    assert.equal(st.perTicket!.tokens, (500 + 50) / 2);
    assert.match(formatRunStats(st), /^ {2}B-2 +2 +1 +4 +400 +40 +\$0\.0600$/m);
  });
});
