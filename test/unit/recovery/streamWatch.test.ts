import assert from 'node:assert/strict';
import { hugeAnswer, timeStreamWatch } from '../../support/streamAnswer';

/**
 * The watch over a streamed answer stays linear in its size: ten times the answer costs about
 * ten times the time (the bench holds it to 12×; here the bound is loose, since this machine is
 * shared, but a watch that re-reads the answer per delta costs about a hundred times).
 */
describe('the stream watch is linear in the answer size', function () {
  this.timeout(120_000);

  it('2 MB costs at most 30 times what 200 KB costs', () => {
    const small = hugeAnswer(200_000);
    const large = hugeAnswer(2_000_000);
    timeStreamWatch(small);
    // The fastest of five each: a busy machine only ever adds time, and a short measure suffers most from it.
    const fastest = (answer: string) => Math.min(...[0, 1, 2, 3, 4].map(() => timeStreamWatch(answer)));
    const ratio = fastest(large) / fastest(small);
    assert.ok(ratio <= 30, `2 MB / 200 KB = ${ratio.toFixed(1)}×`);
  });

  it('still stops prose with no code and a loop, delta by delta', () => {
    const prose = Array.from({ length: 40 }, (_, i) => `Point ${i}: the handler should check the raw value before it is clamped.`).join(
      ' ',
    );
    assert.throws(() => timeStreamWatch(prose), /proseWithoutCode/);
    assert.throws(() => timeStreamWatch(`\`\`\`ts\nexport const a = 1;\n${'again and again and again '.repeat(40)}`), /repetitionLoop/);
  });
});
