import { performance } from 'node:perf_hooks';
import { scoreAnswer, StreamWatch } from '../../src/core/recovery/anomalies';

/** A Coder answer of about `chars` characters: one fenced file of lines that never repeat. */
export function hugeAnswer(chars: number): string {
  const lines = ['Here is the change.', '```ts file=src/big.ts'];
  let size = 0;
  for (let i = 0; size < chars; i++) {
    const line = i % 5 === 0 ? `// step ${i}: the value doubles` : `export const value${i} = ${i} * 2 + ${(i * 7919) % 1000};`;
    lines.push(line);
    size += line.length + 1;
  }
  lines.push('```');
  return lines.join('\n');
}

/**
 * The anomaly watch over an answer streamed in `delta`-character pieces, as rung 1 runs it
 * (a verdict after every delta), and the score of the whole answer after: wall milliseconds.
 */
export function timeStreamWatch(text: string, delta = 64): number {
  const started = performance.now();
  const watch = new StreamWatch({ expectCode: true });
  let soFar = '';
  for (let at = 0; at < text.length; at += delta) {
    const piece = text.slice(at, at + delta);
    soFar += piece;
    watch.push(piece);
    const verdict = watch.verdict(1_000);
    if (verdict.stop) throw new Error(`the watch stopped a clean answer: ${verdict.reason} (${verdict.detail})`);
  }
  scoreAnswer(soFar, { expectCode: true });
  return performance.now() - started;
}
