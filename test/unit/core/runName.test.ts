import { strict as assert } from 'node:assert';
import { agoWords, whenWords } from '../../../src/core/run/views/time';
import { runName } from '../../../src/core/run/views/runName';

/** 18:00 in Berlin on 23 November: "today" and "yesterday" are the user's, not UTC's. */
const NOW = new Date('2026-11-23T17:00:00.000Z');
const ZONE = 'Europe/Berlin';

describe('runName: a run as a person names it, by its ticket and when it ran', () => {
  it("today by the time alone, another day by the day and the time, in the user's zone", () => {
    assert.equal(runName({ ticketId: 'BLOG-1', startedAt: '2026-11-23T09:49:14.000Z' }, NOW, ZONE), "BLOG-1's run from 10:49");
    assert.equal(runName({ ticketId: 'BLOG-1', startedAt: '2026-11-22T09:49:14.000Z' }, NOW, ZONE), "BLOG-1's run from yesterday, 10:49");
    assert.equal(runName({ ticketId: 'BLOG-1', startedAt: '2026-11-05T09:49:14.000Z' }, NOW, ZONE), "BLOG-1's run from 5 Nov, 10:49");
    assert.equal(runName({ ticketId: 'BLOG-1', startedAt: '2025-12-05T09:49:14.000Z' }, NOW, ZONE), "BLOG-1's run from 5 Dec 2025, 10:49");
  });

  it('never its id: a run with no start time or no ticket is still named in words', () => {
    assert.equal(runName({ ticketId: 'BLOG-1', startedAt: undefined }, NOW, ZONE), "BLOG-1's run");
    assert.equal(runName({ ticketId: '', startedAt: '2026-11-23T09:49:14.000Z' }, NOW, ZONE), 'the run from 10:49');
    assert.doesNotMatch(runName({ ticketId: 'BLOG-1', startedAt: '2026-11-23T09:49:14.000Z' }, NOW, ZONE), /\d{8}-\d{6}/);
  });
});

describe('whenWords and agoWords: times a user recognises', () => {
  it('whenWords: the time today, "yesterday", then the day and month, and the year only when it is not this one', () => {
    assert.equal(whenWords('2026-11-23T16:59:00.000Z', NOW, ZONE), '17:59');
    // 23:30 UTC on the 22nd is already the 23rd in Berlin: today.
    assert.equal(whenWords('2026-11-22T23:30:00.000Z', NOW, ZONE), '00:30');
    assert.equal(whenWords('2026-11-21T23:30:00.000Z', NOW, ZONE), 'yesterday, 00:30');
    assert.equal(whenWords('2026-01-02T08:00:00.000Z', NOW, ZONE), '2 Jan, 09:00');
  });

  it('agoWords: "just now" under a minute, minutes under an hour, then the time as whenWords says it', () => {
    const ago = (ms: number) => agoWords(new Date(NOW.getTime() - ms).toISOString(), NOW, ZONE);
    assert.deepEqual([0, 59_000, 60_000, 119_000, 59 * 60_000, 60 * 60_000].map(ago), [
      'just now',
      'just now',
      '1 min ago',
      '1 min ago',
      '59 min ago',
      '17:00',
    ]);
    // A clock a little behind the log's: never "in 2 min".
    assert.equal(ago(-120_000), 'just now');
    assert.equal(ago(26 * 3_600_000), 'yesterday, 16:00');
  });
});
