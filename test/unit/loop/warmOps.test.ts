import assert from 'node:assert/strict';
import { startRun } from '../../../src/core';
import { fakeDeps, scripted, ticketPathOf, type FakeRig } from '../../fakes/fakeDeps';
import { eventsOf, typesOf } from './loopRig';

/**
 * The ops' language service is warmed while the baseline runs, for a ticket with ops, so that its
 * cold start is not paid after the baseline. Through startRun on the fakes: BLOG-2 has an op, BLOG-1 none.
 */

/** Records, in order, the warm-up, the baseline's project tests ending, and each op applied. */
function watch(rig: FakeRig, warm?: (signal: AbortSignal) => Promise<void>): string[] {
  const seen: string[] = [];
  const ops = rig.deps.ops!;
  const apply = ops.apply.bind(ops);
  ops.apply = (op, scope, signal) => {
    seen.push('apply');
    return apply(op, scope, signal);
  };
  ops.warm = (signal) => {
    seen.push('warm');
    return warm ? warm(signal) : Promise.resolve();
  };
  const tests = rig.deps.tests;
  const run = tests.run.bind(tests);
  tests.run = async (request, signal) => {
    const r = await run(request, signal);
    if (!request.files.some((f) => f.startsWith('test/ticket/'))) seen.push('baseline tests ended');
    return r;
  };
  return seen;
}

async function runTicket(ticket: string, warm?: (signal: AbortSignal) => Promise<void>) {
  const rig = fakeDeps('blog-api', scripted('blog-api', ticket));
  const seen = watch(rig, warm);
  const r = await startRun(rig.deps, { ticketPath: ticketPathOf(ticket), signal: new AbortController().signal });
  return { seen, types: typesOf(await eventsOf(rig, r.runId)), status: r.state.status };
}

describe('the ops warm up while the baseline runs', () => {
  it('a ticket with ops: the service is warmed once, before the baseline ends, and the op applies after it', async () => {
    const { seen, types } = await runTicket('BLOG-2');
    assert.equal(seen.filter((s) => s === 'warm').length, 1, seen.join(', '));
    assert.ok(seen.indexOf('warm') < seen.indexOf('baseline tests ended'), seen.join(', '));
    assert.ok(seen.indexOf('baseline tests ended') < seen.indexOf('apply'), seen.join(', '));
    assert.ok(types.includes('op.applied'));
  });

  it('a warm-up that fails or never ends costs the run nothing: the op applies, the run goes as before', async () => {
    const before = await runTicket('BLOG-2');
    const failed = await runTicket('BLOG-2', () => Promise.reject(new Error('the language service could not start')));
    const hung = await runTicket('BLOG-2', () => new Promise<void>(() => undefined));
    for (const r of [failed, hung]) {
      assert.deepEqual(r.types, before.types);
      assert.equal(r.status, before.status);
    }
  });

  it('a ticket without ops never warms the service', async () => {
    const { seen, types } = await runTicket('BLOG-1');
    assert.deepEqual(
      seen.filter((s) => s !== 'baseline tests ended'),
      [],
    );
    assert.ok(!types.includes('op.applied'));
  });
});
