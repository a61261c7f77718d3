import assert from 'node:assert/strict';
import * as fc from 'fast-check';
import { PlanValidationError } from '../../../src/core/errors';
import { planWaves } from '../../../src/core/plan/planOrder';
import type { PlanTicket } from '../../../src/core/schema/plan';

const entry = (ticket: string, ...after: string[]): PlanTicket => ({ ticket, after });

/**
 * A plan whose `after` only points back in the list (so it has no cycle), drawn in a shuffled
 * order so the waves cannot lean on the list's order.
 */
const acyclicPlan = fc
  .integer({ min: 1, max: 12 })
  .chain((n) =>
    fc.tuple(
      fc.tuple(...Array.from({ length: n }, (_, i) => fc.subarray(Array.from({ length: i }, (_, j) => `T${j}`)))),
      fc.shuffledSubarray(
        Array.from({ length: n }, (_, i) => i),
        { minLength: n, maxLength: n },
      ),
    ),
  )
  .map(([afters, order]) => order.map((i) => entry(`T${i}`, ...afters[i]!)));

describe('the order of a plan, in waves', () => {
  it('runs together what waits for nothing still unmet, keeping the plan order within a wave', () => {
    const waves = planWaves(
      {
        tickets: [entry('A'), entry('.tickets/B.ticket.yaml', 'A'), entry('C', 'A'), entry('D', 'B', 'C'), entry('E')],
      },
      'p.plan.yaml',
    );
    assert.deepEqual(waves, [['A', 'E'], ['B', 'C'], ['D']]);
  });

  it('puts every ticket in exactly one wave, after every wave of its dependencies, and as early as they allow', () => {
    fc.assert(
      fc.property(acyclicPlan, (tickets) => {
        const waves = planWaves({ tickets }, 'p.plan.yaml');
        const waveOf = new Map(waves.flatMap((w, i) => w.map((id) => [id, i] as const)));
        assert.deepEqual([...waveOf.keys()].sort(), tickets.map((t) => t.ticket).sort());
        assert.equal(
          waves.reduce((n, w) => n + w.length, 0),
          tickets.length,
        );
        for (const t of tickets) {
          const deps = t.after.map((a) => waveOf.get(a)!);
          for (const d of deps) assert.ok(d < waveOf.get(t.ticket)!, `${t.ticket} runs after ${t.after.join(', ')}`);
          assert.equal(waveOf.get(t.ticket), deps.length ? Math.max(...deps) + 1 : 0, `${t.ticket} waits no longer than it must`);
        }
      }),
    );
  });

  it('always refuses a plan with a cycle, naming the cycle', () => {
    fc.assert(
      fc.property(acyclicPlan, fc.integer({ min: 1, max: 5 }), fc.nat(), (tickets, length, at) => {
        // A cycle through new tickets, entered from one of the plan's: X0 after X(n-1) after ... after X0.
        const ring = Array.from({ length }, (_, i) => `X${i}`);
        const cycle = ring.map((id, i) =>
          entry(id, ring[(i + length - 1) % length]!, ...(i === 0 ? [tickets[at % tickets.length]!.ticket] : [])),
        );
        const plan = { tickets: [...tickets, ...cycle] };
        assert.throws(
          () => planWaves(plan, 'p.plan.yaml'),
          (e: Error) =>
            e instanceof PlanValidationError &&
            /^p\.plan\.yaml: invalid plan: at .*: (the tickets wait for each other in a cycle \(X|X0 is after itself)/.test(e.message),
        );
      }),
    );
  });
});
