import assert from 'node:assert/strict';
import { callsOf, decide, ofType, pureRun, routesOf } from './loopRig';

describe('pure: routes', () => {
  it('BLOG-1: code → Coder → pass', async () => {
    const { state, events } = await pureRun('BLOG-1');
    assert.equal(state.status, 'passed', JSON.stringify(state.finished));
    assert.deepEqual(routesOf(state), ['code']);
    assert.deepEqual([callsOf(state, 'coder'), callsOf(state, 'debugger')], [2, 1]);
    assert.equal(ofType(events, 'run.finished').length, 1);
  });
  it('BLOG-2: test → accept → pass', async () => {
    const first = await pureRun('BLOG-2');
    assert.equal(first.state.status, 'needsOperator', JSON.stringify(first.state.finished));
    const { state } = await decide(first, 'accept');
    assert.equal(state.status, 'passed', JSON.stringify(state.finished));
  });
});
