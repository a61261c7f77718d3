import assert from 'node:assert/strict';
import { CallPermits, type Refusal } from '../../../src/cli/batch/callPermits';

/** Asks for a call and records what came back: a permit, a refusal, or nothing yet. */
function ask(p: CallPermits, key: string, maxCostUsd: number | null) {
  const got: { permit?: number; refused?: Refusal } = {};
  p.acquire(
    key,
    maxCostUsd,
    (permit) => (got.permit = permit),
    (r) => (got.refused = r),
  );
  return got;
}

describe("the batch's call permits (concurrency per key, the dollar cap)", () => {
  it('holds at most maxConcurrent calls in flight per key, in the order they asked; other keys are not held back', () => {
    const p = new CallPermits({ maxConcurrent: 2 });
    const [a, b, c, d] = [ask(p, 'k1', 0), ask(p, 'k1', 0), ask(p, 'k1', 0), ask(p, 'k1', 0)];
    const other = ask(p, 'k2', 0);
    assert.ok(a.permit && b.permit && !c.permit && !d.permit);
    assert.ok(other.permit, 'another key has its own cap');
    p.release(a.permit, 0);
    assert.ok(c.permit && !d.permit);
    p.release(b.permit, 0);
    p.release(c.permit, 0);
    assert.ok(d.permit);
    assert.equal(p.peak.get('k1'), 2);
  });

  it('starts calls side by side while what they can cost fits under the cap, then one alone, then refuses', () => {
    const p = new CallPermits({ maxDollars: 1 });
    const a = ask(p, 'k', 0.4);
    const b = ask(p, 'k', 0.4);
    // 0.4 + 0.4 + 0.4 > 1: the third waits for the calls in flight, and so does everyone behind it.
    const c = ask(p, 'k', 0.4);
    const small = ask(p, 'k', 0.01);
    assert.ok(a.permit && b.permit && !c.permit && !small.permit);
    p.release(a.permit, 0.3);
    assert.ok(!c.permit, 'still 0.3 + 0.4 + 0.4 > 1 with b in flight');
    p.release(b.permit, 0.3);
    // Nothing in flight: c may start although 0.6 + 0.4 could reach the cap; the small one waits behind it.
    assert.ok(c.permit && !small.permit);
    p.release(c.permit, 0.45);
    // 1.05 spent: the cap is passed by c alone, and nothing else starts.
    assert.deepEqual(small.refused, { limitUsd: 1, spentUsd: 1.05 });
    assert.ok(p.exhausted);
    assert.deepEqual(ask(p, 'k', 0).refused, { limitUsd: 1, spentUsd: 1.05 });
  });

  it('a provider that cannot bound its cost runs alone under a dollar cap; a hostile cost report counts as nothing, never as a refund', () => {
    const p = new CallPermits({ maxDollars: 1 });
    const a = ask(p, 'k', null);
    const b = ask(p, 'k', 0);
    assert.ok(a.permit && !b.permit);
    p.release(a.permit, -5);
    assert.equal(p.spentUsd, 0);
    assert.ok(b.permit);
    p.release(b.permit, Number.NaN);
    assert.equal(p.spentUsd, 0);
    // A permit given back twice frees nothing twice.
    p.release(b.permit, 2);
    assert.equal(p.spentUsd, 0);
  });

  it('close refuses whatever still waits', () => {
    const p = new CallPermits({ maxConcurrent: 1 });
    ask(p, 'k', 0);
    const waiting = ask(p, 'k', 0);
    p.close();
    assert.ok(waiting.refused && !waiting.permit);
  });
});
