import assert from 'node:assert/strict';
import { type AnomalyName, DETECTORS, scoreAnswer, URGENT_SCORE, watchStream } from '../../../src/core/recovery/anomalies';

const CLEAN = [
  'The loop stopped one item early; `<=` fixes the bound.',
  '',
  '```ts',
  'export function sum(values: number[]): number {',
  '  let total = 0;',
  '  for (let i = 0; i < values.length; i++) {',
  '    // values may be sparse: skip the holes',
  '    total += values[i] ?? 0;',
  '  }',
  '  return total;',
  '}',
  '```',
].join('\n');

const names = (text: string, expectCode = true, maxChars?: number) =>
  scoreAnswer(text, { expectCode, ...(maxChars ? { maxChars } : {}) }).signals.map((s) => s.name);

function assertFires(text: string, name: AnomalyName, options: { expectCode?: boolean; maxChars?: number } = {}) {
  const result = scoreAnswer(text, { expectCode: options.expectCode ?? true, ...(options.maxChars ? { maxChars: options.maxChars } : {}) });
  const signal = result.signals.find((s) => s.name === name);
  assert.ok(signal, `${name} did not fire; got ${JSON.stringify(result.signals)}`);
  assert.equal(signal.weight, DETECTORS[name].weight);
  assert.ok(signal.detail.length > 0);
  return result;
}

describe('scoreAnswer', () => {
  it('scores a clean answer with code at zero', () => {
    assert.deepEqual(scoreAnswer(CLEAN, { expectCode: true }), { score: 0, urgent: false, signals: [] });
  });

  it('scores clean prose at zero when no code is expected', () => {
    const prose = 'The failing assertion expects 3 but the ticket says the total excludes tax, so the test is wrong.';
    assert.deepEqual(scoreAnswer(prose, { expectCode: false }), { score: 0, urgent: false, signals: [] });
  });

  it('repetitionLoop: the same lines over and over', () => {
    const loop = `${CLEAN}\n${'    total += values[i] ?? 0;\n'.repeat(6)}`;
    const result = assertFires(loop, 'repetitionLoop');
    assert.equal(result.urgent, true);
    assert.equal(result.signals[0]?.detail, '"total += values[i] ?? 0;" repeated 6 times');
  });

  it('repetitionLoop: a phrase looping at the end of a line', () => {
    const loop = `${CLEAN}\nI will fix the bound. ${'and then the loop, '.repeat(20)}`;
    assertFires(loop, 'repetitionLoop');
  });

  it('repetitionLoop: leaves a few repeated lines and separators alone', () => {
    const legit = `${CLEAN}\n\n${'expect(sum([1])).toBe(1);\n'.repeat(3)}${'-'.repeat(300)}\n`;
    assert.ok(!names(legit).includes('repetitionLoop'));
  });

  it('nearEmpty: an answer with almost nothing in it', () => {
    const result = assertFires('  ok \n', 'nearEmpty');
    assert.equal(result.urgent, true);
    assert.deepEqual(names('  ok \n'), ['nearEmpty'], 'a near-empty answer is not also called prose');
  });

  it('proseWithoutCode: prose where code is expected', () => {
    const prose = 'To fix this, you should change the loop so that it visits every element, including the last one. Then the totals match.';
    const result = assertFires(prose, 'proseWithoutCode');
    assert.equal(result.urgent, true);
    assert.ok(!names(prose, false).includes('proseWithoutCode'), 'prose is fine for a prose role');
  });

  it('proseWithoutCode: bare code without fences counts as code', () => {
    assert.deepEqual(names('export const add = (a: number, b: number) => a + b;\nexport const one = 1;'), []);
  });

  it('commentOnlyCode: a stub whose body is only comments', () => {
    const stub =
      'Here is the implementation:\n```ts\nexport function sum(values: number[]): number {\n  // TODO: add the values\n  // ...\n}\n```';
    const result = assertFires(stub, 'commentOnlyCode');
    assert.equal(result.urgent, false, 'one weak signal alone does not trigger rung 1');
    assert.ok(result.score < URGENT_SCORE);
  });

  it('leakedThinking: reasoning tags in the answer', () => {
    assertFires(`<think>the bound is off by one</think>\n${CLEAN}`, 'leakedThinking');
  });

  it('selfDoubtLoop: wait, actually, over and over', () => {
    const doubt = `Wait, the bound is fine. Actually, no. Hmm, let me reconsider the loop. Wait, that is not it either.\n${CLEAN}`;
    assert.match(assertFires(doubt, 'selfDoubtLoop').signals[0]?.detail ?? '', /^5 self-corrections \(wait \/ actually \/ hmm\)$/);
    assert.ok(!names(`Wait, one more thing: the bound.\n${CLEAN}`).includes('selfDoubtLoop'), 'one turn is normal');
    assert.ok(
      !names(`${CLEAN}\n\`\`\`ts\nawait wait(1);\nawait wait(2);\nawait wait(3);\n\`\`\``).includes('selfDoubtLoop'),
      'code is not read for doubt',
    );
  });

  it('oversized: an answer past the size limit', () => {
    assertFires(CLEAN, 'oversized', { maxChars: 100 });
    assert.ok(!names(CLEAN).includes('oversized'), 'the default limit is generous');
  });

  it('two weak signals together reach the urgent score', () => {
    const result = scoreAnswer(`<think>hmm</think>\n${CLEAN}`, { expectCode: true, maxChars: 100 });
    assert.deepEqual(result.signals.map((s) => s.name).sort(), ['leakedThinking', 'oversized']);
    assert.equal(result.score, 1);
    assert.equal(result.urgent, true);
  });
});

describe('watchStream (rung 1)', () => {
  const watch = { expectCode: true, proseCharLimit: 200, startDeadlineMs: 1_000 };
  const prose = 'Let me think about the design of this function and the trade-offs involved in each approach. '
    .repeat(1)
    .padEnd(250, ' More words about the design and its trade-offs.');

  it('keeps going while nothing is wrong', () => {
    assert.deepEqual(watchStream('', 500, watch), { stop: false });
    assert.deepEqual(watchStream('Here is the fix:\n```ts\n', 5_000, watch), { stop: false });
    assert.deepEqual(watchStream(prose.slice(0, 150), 5_000, watch), { stop: false }, 'prose under the limit is allowed');
    assert.deepEqual(watchStream(CLEAN + prose, 5_000, watch), { stop: false }, 'prose after code is allowed');
  });

  it('stops when nothing arrived before the start deadline', () => {
    const verdict = watchStream('  \n', 1_000, watch);
    assert.equal(verdict.stop, true);
    assert.equal(verdict.stop && verdict.reason, 'noStart');
  });

  it('stops prose with no code past the character threshold', () => {
    assert.ok(prose.length >= 200);
    const verdict = watchStream(prose, 3_000, watch);
    assert.equal(verdict.stop && verdict.reason, 'proseWithoutCode');
    assert.deepEqual(watchStream(prose, 3_000, { ...watch, expectCode: false }), { stop: false });
  });

  it('stops a stream that loops', () => {
    const verdict = watchStream(`${CLEAN}\n${'the same words again '.repeat(15)}`, 3_000, watch);
    assert.equal(verdict.stop && verdict.reason, 'repetitionLoop');
  });

  it('stays cheap on a long stream, called on every delta', () => {
    const long = CLEAN.repeat(20).replace(/total/g, (m, i: number) => `${m}${i}`);
    const started = Date.now();
    for (let end = 10; end <= long.length; end += 10) watchStream(long.slice(0, end), 2_000, watch);
    assert.ok(Date.now() - started < 1_000, `took ${Date.now() - started} ms`);
  });
});
