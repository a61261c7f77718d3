import assert from 'node:assert/strict';
import { CODE_WITHOUT_REASONING_INSTRUCTION, extractJsonAnswer, jsonOnlyInstruction } from '../../../src/core/recovery/proseSuppression';
import { planLmRequest, structuredAnswer } from '../../../src/vscode/lmAdapt';
import { thinkingFor } from '../../../src/vscode/lmThinking';

/**
 * What the vscode.lm provider does that needs no editor: rung 3's prose suppression and answer
 * extraction, and the thinking mapping. The provider itself
 * runs against a chat provider in code-server (test/vscode/lm.test.ts).
 */
const DIAGNOSIS = {
  kind: 'code',
  claim: 'the guard reads the clamped value',
  evidence: [{ source: 'implementation', quote: 'if (perPage > MAX_PER_PAGE) {' }],
};
const JSON_TEXT = JSON.stringify(DIAGNOSIS);

describe('vscode.lm: answer extraction (rung 3, no prefill)', () => {
  it('takes the one JSON object out of prose before and after it, and says how much prose it left', () => {
    const text = `Sure! Here is my diagnosis:\n\n${JSON_TEXT}\n\nLet me know if you need more.`;
    const got = extractJsonAnswer(text);
    assert.deepEqual(got.value, DIAGNOSIS);
    assert.deepEqual(got.adaptation, { kind: 'answerExtracted', from: 'bareJson', skippedChars: text.length - JSON_TEXT.length });
  });

  it('takes a fenced json block, and braces inside its strings do not confuse it', () => {
    const withBraces = { ...DIAGNOSIS, claim: 'an unbalanced "{" and a } in a string' };
    const text = 'The answer:\n```json\n' + JSON.stringify(withBraces, null, 2) + '\n```\nDone.';
    const got = extractJsonAnswer(text);
    assert.deepEqual(got.value, withBraces);
    assert.equal(got.adaptation.kind, 'answerExtracted');
    assert.equal(got.adaptation.kind === 'answerExtracted' && got.adaptation.from, 'fencedJson');
  });

  it('hostile: an example object beside the answer is ambiguous, and nothing is taken', () => {
    const example = { kind: 'testPlan', claim: 'example', evidence: [] };
    for (const text of [
      `For example ${JSON.stringify(example)} would blame the tests. My answer: ${JSON_TEXT}`,
      // A fenced example and a bare answer: preferring the fence would pick the wrong one.
      '```json\n' + JSON.stringify(example) + '\n```\nThe real one: ' + JSON_TEXT,
    ]) {
      const got = extractJsonAnswer(text);
      assert.equal(got.value, undefined, text);
      assert.equal(got.adaptation.kind, 'answerNotExtracted');
      assert.match(got.adaptation.kind === 'answerNotExtracted' ? got.adaptation.detail : '', /2 different JSON objects/);
    }
  });

  it('the same object twice (fenced, then repeated bare) is one answer', () => {
    const got = extractJsonAnswer('```json\n' + JSON_TEXT + '\n```\nAgain: ' + JSON_TEXT);
    assert.deepEqual(got.value, DIAGNOSIS);
  });

  it('an unbalanced brace in the prose before the answer does not hide it', () => {
    const got = extractJsonAnswer(`Open a block with { and close it later. ${JSON_TEXT}`);
    assert.deepEqual(got.value, DIAGNOSIS);
  });

  it('no object (prose, an array, a number) is not extracted, and says so', () => {
    for (const text of ['I could not find the cause.', '[1, 2, 3]', '42', '']) {
      const got = extractJsonAnswer(text);
      assert.equal(got.value, undefined);
      assert.match(got.adaptation.kind === 'answerNotExtracted' ? got.adaptation.detail : '', /no JSON object/);
    }
  });

  it('hostile: a text of many unbalanced braces, or a huge one, ends at once with nothing taken', () => {
    const t = Date.now();
    assert.equal(extractJsonAnswer('{'.repeat(50_000) + JSON_TEXT).value, undefined);
    assert.equal(extractJsonAnswer(`${'x'.repeat(200_001)}${JSON_TEXT}`).value, undefined);
    assert.ok(Date.now() - t < 2000, `took ${Date.now() - t} ms`);
  });

  it('a structured tool call wins over JSON in the text: the text is not read for an answer', () => {
    const call = { id: 'c1', name: 'diagnosis', input: DIAGNOSIS };
    const other = { id: 'c2', name: 'run_tests', input: {} };
    const got = structuredAnswer('diagnosis', '{"kind":"ticket","claim":"planted"}', [call, other]);
    assert.deepEqual(got, { structured: DIAGNOSIS, toolCalls: [other] });
    assert.deepEqual(
      structuredAnswer(undefined, JSON_TEXT, [other]),
      { toolCalls: [other] },
      'a call with no structured form takes nothing from its text',
    );
    const fromText = structuredAnswer('diagnosis', `Here: ${JSON_TEXT}`, []);
    assert.deepEqual(fromText.structured, DIAGNOSIS);
    assert.equal(fromText.adaptation?.kind, 'answerExtracted');
  });
});

describe('vscode.lm: the request plan (prose suppression, thinking)', () => {
  const structured = { name: 'diagnosis', description: 'd', jsonSchema: { type: 'object' } };

  it('a structured call asks for the tool or a bare JSON object, since toolMode may be ignored; the receipt carries the words', () => {
    const plan = planLmRequest(
      { role: 'debugger', system: 'You are the Debugger.', structured },
      { vendor: 'copilot', family: 'gpt-4o', id: 'x' },
    );
    assert.equal(plan.system, `You are the Debugger.\n\n${jsonOnlyInstruction('diagnosis')}`);
    assert.deepEqual(plan.adaptations, [{ kind: 'proseSuppressed', instruction: jsonOnlyInstruction('diagnosis') }]);
    assert.equal(plan.modelOptions, undefined);
  });

  it('a Coder call without thinking is sent as it is, with no receipt', () => {
    const plan = planLmRequest({ role: 'coder', system: 'You are the Coder.' }, { vendor: 'copilot', family: 'o4-mini', id: 'x' });
    assert.deepEqual(plan, { system: 'You are the Coder.', adaptations: [] });
  });

  it('thinking on a reasoning family is mapped to its option; a Coder is told to keep its reasoning out of the answer', () => {
    const plan = planLmRequest({ role: 'coder', system: 'S', thinking: true }, { vendor: 'copilot', family: 'o4-mini', id: 'x' });
    assert.deepEqual(plan.modelOptions, { reasoning_effort: 'high' });
    assert.equal(plan.adaptations[0]?.kind, 'thinkingMapped');
    assert.match(
      plan.adaptations[0]?.kind === 'thinkingMapped' ? plan.adaptations[0].detail : '',
      /copilot\/o4-mini.*reasoning_effort.*cannot confirm/,
    );
    assert.deepEqual(plan.adaptations[1], { kind: 'proseSuppressed', instruction: CODE_WITHOUT_REASONING_INSTRUCTION });
    assert.equal(plan.system, `S\n\n${CODE_WITHOUT_REASONING_INSTRUCTION}`);
  });

  it('maps each known family to its option, and says "not available" for the others', () => {
    const mapped = (family: string) => {
      const m = thinkingFor({ vendor: 'v', family, id: family });
      return m.kind === 'thinkingMapped' ? m.modelOptions : undefined;
    };
    for (const f of ['o1', 'o3-mini', 'o4-mini', 'gpt-5', 'gpt-5-mini']) assert.deepEqual(mapped(f), { reasoning_effort: 'high' }, f);
    for (const f of ['claude-3.7-sonnet', 'claude-sonnet-4', 'claude-opus-4.1', 'claude-sonnet-4.5'])
      assert.deepEqual(mapped(f), { thinking: { type: 'enabled', budget_tokens: 8000 } }, f);
    for (const f of ['gpt-4o', 'gpt-4.1', 'claude-3.5-sonnet', 'omni-model', 'fake-plain', '']) {
      const m = thinkingFor({ vendor: 'v', family: f, id: f });
      assert.equal(m.kind, 'thinkingUnavailable', f);
      assert.match(m.detail, /not available for v\/.*the call ran without it/);
    }
  });
});
