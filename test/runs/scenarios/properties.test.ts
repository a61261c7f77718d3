import assert from 'node:assert/strict';
import type { RunEvent } from '../../../src/core/schema/events';
import { copyFixture } from '../../support/tempWorkspace';
import { light, loadEvents, runTicket } from '../../support/rungRuns';

/**
 * Properties over fresh inputs (BLOG-15): AC2 is a fast-check property. Attempt 1 adds the
 * ellipsis after `max` characters, one too many: the property fails with its seed and shrunk
 * counterexample; attempt 2 draws from a new seed and passes.
 */

const seededAt = (events: RunEvent[]) =>
  events.flatMap((e, i) => (e.type === 'properties.seeded' ? [{ attempt: e.attempt, seed: e.seed, at: i }] : []));

describe('scenarios: properties over fresh inputs (BLOG-15)', function () {
  this.timeout(120_000);

  it('each attempt draws from a seed of its own, in the log before its tests run; a counterexample fails attempt 1 with that seed, and attempt 2 passes', async () => {
    const ws = copyFixture();
    try {
      const r = await runTicket(ws.root, 'BLOG-15', light);
      const events = await loadEvents(ws.root, r.runId);
      const s = r.state;
      assert.equal(s.status, 'passed', JSON.stringify(s.finished));
      const seeds = seededAt(events);
      assert.deepEqual(
        seeds.map((x) => x.attempt),
        [1, 2],
      );
      assert.notEqual(seeds[0]!.seed, seeds[1]!.seed, 'the next attempt draws new inputs');
      for (const x of seeds) {
        const ran = events.findIndex((e) => e.type === 'tests.ran' && e.attempt === x.attempt);
        assert.ok(ran > x.at, `attempt ${x.attempt}: the seed is in the log before the tests ran`);
      }
      assert.deepEqual(
        s.attempts.map((a) => [a.n, a.tests?.status, a.propertySeed, a.route?.route]),
        [
          [1, 'failed', seeds[0]!.seed, 'code'],
          [2, 'passed', seeds[1]!.seed, undefined],
        ],
      );
      const failed = s.attempts[0]!.tests!.cases.find((c) => c.status === 'failed');
      assert.equal(failed?.name, 'BLOG-15 excerpt > [AC2] is never longer than max');
      assert.match(failed?.message ?? '', new RegExp(`seed: ${seeds[0]!.seed}\\b`));
      assert.match(failed?.message ?? '', /Counterexample: \[.*\]/);
    } finally {
      ws.dispose();
    }
  });
});
