import assert from 'node:assert/strict';
import { callsOf, ofType, pureRun } from './loopRig';

/**
 * The other fixtures' runners, replayed: vitest (shop-esm) and jest (inventory-jest) as the real
 * runs reported them. Their real end-to-end scenarios stay in test/runs/scenarios/shopEsm.test.ts
 * and inventoryJest.test.ts (with the gates, which the pure tier does not wire).
 */
describe('pure: other fixtures', () => {
  it('SHOP-1 (vitest, ESM): a plain change passes first time, every case of the plan reported passed', async () => {
    const { state, events } = await pureRun('SHOP-1', { fixture: 'shop-esm' });
    assert.equal(state.status, 'passed', JSON.stringify(state.finished));
    assert.equal(ofType(events, 'tests.materialized')[0]?.framework, 'vitest');
    assert.deepEqual(
      state.attempts[0]?.tests?.cases.map((c) => c.status),
      ['passed', 'passed'],
    );
    assert.deepEqual([callsOf(state, 'coder'), callsOf(state, 'debugger')], [1, 0]);
  });

  it('INV-1 (jest, CommonJS): a plain change passes first time', async () => {
    const { state, events } = await pureRun('INV-1', { fixture: 'inventory-jest' });
    assert.equal(state.status, 'passed', JSON.stringify(state.finished));
    assert.equal(ofType(events, 'tests.materialized')[0]?.framework, 'jest');
    assert.ok(state.attempts[0]?.tests?.cases.every((c) => c.status === 'passed'));
  });
});
