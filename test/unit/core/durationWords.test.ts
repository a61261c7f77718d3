import { strict as assert } from 'node:assert';
import { durationWords } from '../../../src/core/run/views/time';

describe('durationWords: how long something took, as people read it', () => {
  it('a tenth of a second under ten seconds, whole seconds under a minute, then minutes and seconds', () => {
    assert.deepEqual([0, 49, 112, 2437, 9949, 9950, 18_937, 59_499, 59_500, 60_000, 72_400, 3_600_000].map(durationWords), [
      '0.0 s',
      '0.0 s',
      '0.1 s',
      '2.4 s',
      '9.9 s',
      '10 s',
      '19 s',
      '59 s',
      '1 min',
      '1 min',
      '1 min 12 s',
      '60 min',
    ]);
  });
});
