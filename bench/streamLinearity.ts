/**
 * The anomaly watch over a streamed answer stays linear: a 2 MB answer ÷ a 200 KB answer,
 * streamed in 64-character deltas with a verdict after each, then scored (target ≤ 12×).
 * `tsx bench/streamLinearity.ts` prints it alone.
 */
import { hugeAnswer, timeStreamWatch } from '../test/support/streamAnswer';
import { median, round } from './measure';
import { ms, type Row } from './report';

export interface StreamLinearity {
  smallMs: number[];
  largeMs: number[];
  ratio: number;
}

export function measureStreamLinearity(runs: number): StreamLinearity {
  const [small, large] = [hugeAnswer(200_000), hugeAnswer(2_000_000)];
  timeStreamWatch(small);
  const smallMs: number[] = [];
  const largeMs: number[] = [];
  for (let i = 0; i < runs; i++) {
    smallMs.push(timeStreamWatch(small));
    largeMs.push(timeStreamWatch(large));
  }
  return { smallMs, largeMs, ratio: round(median(largeMs) / median(smallMs), 2) };
}

export function streamLinearityRow(s: StreamLinearity): Row {
  return {
    figure: 'Stream watch, 2 MB vs 200 KB answer',
    measured: `${ms(median(s.largeMs))} vs ${ms(median(s.smallMs))}, median of ${s.smallMs.length}`,
    ratio: s.ratio,
    target: '≤ 12',
    met: s.ratio <= 12,
  };
}

if (require.main === module) process.stdout.write(`${JSON.stringify(streamLinearityRow(measureStreamLinearity(5)))}\n`);
