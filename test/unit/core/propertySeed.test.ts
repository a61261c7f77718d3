import assert from 'node:assert/strict';
import { RunLog } from '../../../src/core/run/runLog';
import { reduceRun } from '../../../src/core/run/reducer';
import type { Manifest } from '../../../src/core/schema/manifest';
import { TestFile } from '../../../src/core/schema/testPlan';
import { attemptSeed } from '../../../src/core/stages/checks/propertySeed';
import { sha256 } from '../../fakes/candidateKey';
import { FakeClock } from '../../fakes/fakeClock';
import { memoryRunStore } from '../../fakes/memoryRunStore';
import { aManifest } from '../../support/aManifest';

/** The parts of a manifest the seed reads: a visible plan and held-out cases, each with these expectations. */
function manifestOf(visible: unknown[], heldOut: unknown[] = []): Manifest {
  const file = (expect: unknown[]) => TestFile.parse({ path: 'test/t.test.ts', suite: 't', cases: [{ name: 'c', expect }] });
  return aManifest({ testPlan: { files: [file(visible)] }, heldOut: { generalize: true, files: heldOut.length ? [file(heldOut)] : [] } });
}

const property = { kind: 'property', arbitraries: ['fc.nat()'], params: ['n'], predicate: 'n >= 0' };
const truthy = { kind: 'truthy', actual: 'true' };

describe('property seeds', () => {
  const store = memoryRunStore(sha256);
  const open = (runId: string, events: RunLog['events'] = []) => new RunLog(runId, store, new FakeClock(), events);

  it("gives each attempt its own seed, written to the log before it is used, and read back by the attempt's later runs", async () => {
    const ctx = { manifest: manifestOf([property]), log: open('run-a'), deps: { hash: sha256 } };
    const first = await attemptSeed(ctx, 1);
    assert.equal(typeof first, 'number');
    assert.ok(Number.isInteger(first) && first! >= -(2 ** 31) && first! < 2 ** 31, 'a 32-bit integer, as fast-check keeps it');
    assert.equal(await attemptSeed(ctx, 1), first);
    const second = await attemptSeed(ctx, 2);
    assert.notEqual(second, first);
    assert.deepEqual(
      ctx.log.events.map((e) => (e.type === 'properties.seeded' ? [e.attempt, e.seed] : e.type)),
      [
        [1, first],
        [2, second],
      ],
    );
    assert.equal(reduceRun('run-a', ctx.log.events).attempts.find((a) => a.n === 2)?.propertySeed, second);
  });

  it("takes a resumed run's seed from its log, and another run's seeds are its own", async () => {
    const before = { manifest: manifestOf([property]), log: open('run-b'), deps: { hash: sha256 } };
    const seed = await attemptSeed(before, 1);
    // The log says what the run drew, whatever the hash would give now.
    const events = before.log.events.map((e) => (e.type === 'properties.seeded' ? { ...e, seed: 7 } : e));
    const resumed = { ...before, log: open('run-b', events) };
    assert.equal(await attemptSeed(resumed, 1), 7);
    assert.equal(resumed.log.events.length, 1, 'nothing new written');
    assert.notEqual(await attemptSeed({ ...before, log: open('run-c') }, 1), seed);
  });

  it('seeds an attempt for held-out properties too, and none when the plan has no property', async () => {
    assert.equal(
      typeof (await attemptSeed({ manifest: manifestOf([truthy], [property]), log: open('run-d'), deps: { hash: sha256 } }, 1)),
      'number',
    );
    const none = { manifest: manifestOf([truthy]), log: open('run-e'), deps: { hash: sha256 } };
    assert.equal(await attemptSeed(none, 1), undefined);
    assert.deepEqual(none.log.events, []);
  });
});
