import assert from 'node:assert/strict';
import { inspect } from 'node:util';
import { z } from 'zod';
import { CancelledError, ModelTransportError, UserInputError } from '../../../src/core/errors';
import { structuredSpecFromZod } from '../../../src/core/stages/common/structured';
import type { ModelRequest, ModelResponse } from '../../../src/core/ports/model';
import { costOf, DEFAULT_PRICES, priceFor } from '../../../src/core/run/pricing';
import { AnthropicProvider, type AnthropicProviderOptions, createAnthropicProviderFromEnv } from '../../../src/node/models/anthropic';
import {
  apiError,
  dropConnection,
  dropMidStream,
  endEarly,
  FakeAnthropic,
  internalError,
  overloaded,
  rateLimited,
  reply,
  stall,
  streamError,
  text,
  textReply,
  thinking,
  toolUse,
} from '../../support/fakeAnthropic';

const API_KEY = 'sk-ant-api03-TEST-secret-key-0123456789abcdef';
const MODEL = 'claude-sonnet-4-6';

const Verdict = z.object({ kind: z.enum(['code', 'test']), claim: z.string().min(1) });
const VERDICT = structuredSpecFromZod('report_diagnosis', 'Report the diagnosis.', Verdict);

function request(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return {
    role: 'coder',
    attempt: 1,
    system: 'You write TypeScript.',
    messages: [{ role: 'user', content: 'Write add(a, b).' }],
    ...overrides,
  };
}

const body = (fake: FakeAnthropic, index = -1) => {
  const recorded = fake.requests.at(index);
  assert.ok(recorded, 'the fake received no request');
  return recorded.body;
};

/** Runs a call that must fail and returns its error. */
async function failure(call: Promise<ModelResponse>): Promise<Error> {
  const outcome = await call.then(
    (response) => ({ response }),
    (error: unknown) => ({ error }),
  );
  assert.ok('error' in outcome, `expected the call to fail, it answered ${JSON.stringify((outcome as { response: unknown }).response)}`);
  assert.ok(outcome.error instanceof Error);
  return outcome.error;
}

function assertNoKey(value: unknown): void {
  const rendered =
    value instanceof Error
      ? `${value.message}\n${value.stack ?? ''}\n${inspect(value, { depth: 5 })}`
      : inspect(value, { depth: 8, showHidden: true });
  assert.ok(!rendered.includes(API_KEY), `the API key leaked into: ${rendered.slice(0, 400)}`);
  assert.ok(!rendered.includes('TEST-secret'), 'part of the API key leaked');
}

describe('Anthropic provider (real SDK against a local fake)', function () {
  let fake: FakeAnthropic;
  const never = new AbortController().signal;

  before(async () => {
    fake = await FakeAnthropic.start();
  });
  after(async () => {
    await fake.close();
  });
  afterEach(function () {
    const leftover = fake.pending;
    fake.reset();
    if (this.currentTest?.state === 'passed') assert.equal(leftover, 0, 'scripted replies were left unserved');
  });

  const provider = (options: Partial<AnthropicProviderOptions> = {}) =>
    new AnthropicProvider({ apiKey: API_KEY, model: MODEL, baseURL: fake.baseURL, ...options });

  describe('answers', () => {
    it('makes a plain call and maps text, usage and stop reason', async () => {
      fake.enqueue(textReply('export const add = (a: number, b: number) => a + b;', { usage: { input_tokens: 120, output_tokens: 45 } }));
      const response = await provider().complete(request(), never);

      assert.equal(response.text, 'export const add = (a: number, b: number) => a + b;');
      assert.equal(response.stopReason, 'end');
      assert.deepEqual(response.toolCalls, []);
      assert.equal(response.structured, undefined);
      assert.deepEqual(response.usage, { inputTokens: 120, outputTokens: 45, cacheReadTokens: 0, cacheWriteTokens: 0 });
      assert.equal(response.retries, 0);
      assert.ok(response.latencyMs >= 0);

      const sent = fake.requests[0];
      assert.equal(sent?.path, '/v1/messages');
      assert.equal(sent?.headers['authorization'], `Bearer ${API_KEY}`);
      assert.equal(sent?.body['model'], MODEL);
      assert.equal(sent?.body['max_tokens'], 8192);
      assert.notEqual(sent?.body['stream'], true);
      assert.deepEqual(sent?.body['messages'], [{ role: 'user', content: [{ type: 'text', text: 'Write add(a, b).' }] }]);
      assert.deepEqual(sent?.body['system'], [{ type: 'text', text: 'You write TypeScript.', cache_control: { type: 'ephemeral' } }]);
      assert.equal(sent?.body['thinking'], undefined);
      assert.equal(sent?.body['tools'], undefined);
    });

    it('reports its identity as a real, unscripted provider', () => {
      assert.deepEqual(provider().info, { provider: 'anthropic', model: MODEL, scripted: false });
    });

    it('streams, calling onText with each delta and the text so far', async () => {
      const answer = 'Here is the code:\n```ts\nexport const add = (a: number, b: number) => a + b;\n```';
      fake.enqueue(textReply(answer, { chunkSize: 5 }));
      const deltas: string[] = [];
      const response = await provider().complete(
        request({
          onText: (delta, soFar) => {
            deltas.push(delta);
            assert.equal(soFar, deltas.join(''));
          },
        }),
        never,
      );

      assert.equal(body(fake)['stream'], true);
      assert.ok(deltas.length >= answer.length / 5, `expected many deltas, got ${deltas.length}`);
      assert.equal(deltas.join(''), answer);
      assert.equal(response.text, answer);
      assert.equal(response.stopReason, 'end');
    });

    it('forces the structured tool and returns its input unvalidated', async () => {
      fake.enqueue(reply([toolUse('report_diagnosis', { kind: 'code', claim: 'off by one in the loop bound' })]));
      const response = await provider().complete(request({ role: 'debugger', structured: VERDICT }), never);

      const sent = body(fake);
      assert.deepEqual(sent['tool_choice'], { type: 'tool', name: 'report_diagnosis' });
      const tools = sent['tools'] as { name: string; input_schema: Record<string, unknown> }[];
      assert.equal(tools.length, 1);
      assert.equal(tools[0]?.name, 'report_diagnosis');
      assert.deepEqual(tools[0]?.input_schema['required'], ['kind', 'claim']);
      assert.equal(tools[0]?.input_schema['$schema'], undefined);

      assert.deepEqual(Verdict.parse(response.structured), { kind: 'code', claim: 'off by one in the loop bound' });
      assert.deepEqual(response.toolCalls, [], 'the structured tool is not a tool call to run');
      assert.equal(response.stopReason, 'end');
    });

    it('turns extended thinking on, streams, and keeps thinking out of the text', async () => {
      fake.enqueue(
        reply([thinking('The loop bound is wrong, so the last item is skipped.'), text('```ts\nfor (let i = 0; i <= n; i++) {}\n```')]),
      );
      const response = await provider({ thinkingBudgetTokens: 2048, maxTokens: 4000 }).complete(request({ thinking: true }), never);

      const sent = body(fake);
      assert.deepEqual(sent['thinking'], { type: 'enabled', budget_tokens: 2048 });
      assert.equal(sent['max_tokens'], 4000 + 2048, 'the answer keeps its own allowance beside the thinking budget');
      assert.equal(sent['stream'], true);
      assert.equal(response.text, '```ts\nfor (let i = 0; i <= n; i++) {}\n```');
      assert.ok(!response.text.includes('loop bound'));
      assert.deepEqual(response.reasoning, [
        { type: 'thinking', thinking: 'The loop bound is wrong, so the last item is skipped.', signature: 'sig-53' },
      ]);
    });

    it('asks for the structured tool without forcing it when thinking is on (the API allows only auto)', async () => {
      fake.enqueue(reply([thinking('Decide.'), toolUse('report_diagnosis', { kind: 'test', claim: 'the test expects 3' })]));
      const response = await provider().complete(request({ thinking: true, structured: VERDICT }), never);

      const sent = body(fake);
      assert.deepEqual(sent['tool_choice'], { type: 'auto' });
      assert.match(JSON.stringify(sent['system']), /report_diagnosis/);
      assert.deepEqual(Verdict.parse(response.structured), { kind: 'test', claim: 'the test expects 3' });
    });

    it('runs a tool-call round trip: tool_use, a tool_result message, then the final text', async () => {
      const runTests = {
        name: 'run_tests',
        description: 'Run the tests on the candidate.',
        inputSchema: { type: 'object', properties: { files: { type: 'array' } } },
      };
      const call = toolUse('run_tests', { files: ['src/add.ts'] });
      fake.enqueue(reply([text('Let me check.'), call]), textReply('All tests pass.'));
      const model = provider();

      const first = await model.complete(request({ tools: [runTests] }), never);
      assert.equal(first.stopReason, 'toolUse');
      assert.equal(first.text, 'Let me check.');
      assert.deepEqual(first.toolCalls, [{ id: (call as { id: string }).id, name: 'run_tests', input: { files: ['src/add.ts'] } }]);
      const sentTools = body(fake)['tools'] as { name: string; description: string; input_schema: unknown }[];
      assert.deepEqual(sentTools, [
        { name: 'run_tests', description: 'Run the tests on the candidate.', input_schema: runTests.inputSchema },
      ]);
      assert.equal(body(fake)['tool_choice'], undefined);

      const toolCallId = first.toolCalls[0]?.id ?? '';
      const second = await model.complete(
        request({
          tools: [runTests],
          messages: [
            { role: 'user', content: 'Write add(a, b).' },
            { role: 'assistant', content: first.text, toolCalls: first.toolCalls },
            { role: 'tool', toolCallId, content: '3 passed, 0 failed' },
            { role: 'tool', toolCallId: 'toolu_other', content: 'lint failed', isError: true },
          ],
        }),
        never,
      );
      assert.equal(second.text, 'All tests pass.');
      assert.deepEqual(body(fake)['messages'], [
        { role: 'user', content: [{ type: 'text', text: 'Write add(a, b).' }] },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Let me check.' },
            { type: 'tool_use', id: toolCallId, name: 'run_tests', input: { files: ['src/add.ts'] } },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: toolCallId, content: '3 passed, 0 failed' },
            { type: 'tool_result', tool_use_id: 'toolu_other', content: 'lint failed', is_error: true },
          ],
        },
      ]);
    });

    it('sends reasoning back first in an assistant turn, as a thinking tool round trip requires', async () => {
      fake.enqueue(textReply('done'));
      await provider().complete(
        request({
          thinking: true,
          messages: [
            { role: 'user', content: 'go' },
            {
              role: 'assistant',
              content: '',
              reasoning: [
                { type: 'thinking', thinking: 'plan', signature: 'sig' },
                { type: 'redacted', data: 'opaque' },
              ],
              toolCalls: [{ id: 'toolu_1', name: 'run_tests', input: {} }],
            },
            { role: 'tool', toolCallId: 'toolu_1', content: 'ok' },
          ],
        }),
        never,
      );
      const assistant = (body(fake)['messages'] as { content: unknown[] }[])[1];
      assert.deepEqual(assistant?.content, [
        { type: 'thinking', thinking: 'plan', signature: 'sig' },
        { type: 'redacted_thinking', data: 'opaque' },
        { type: 'tool_use', id: 'toolu_1', name: 'run_tests', input: {} },
      ]);
    });

    it('returns structured input that breaks the schema as-is, for the caller to reject', async () => {
      fake.enqueue(reply([toolUse('report_diagnosis', { kind: 'banana', claim: 42 })]));
      const response = await provider().complete(request({ structured: VERDICT }), never);

      assert.deepEqual(response.structured, { kind: 'banana', claim: 42 });
      assert.equal(Verdict.safeParse(response.structured).success, false);
    });

    it('returns streamed tool input that is not even JSON as its raw text, without crashing', async () => {
      const broken = '{"kind": "code", "claim": "unterminated';
      fake.enqueue(reply([toolUse('report_diagnosis', {}, broken)], { chunkSize: 4 }));
      const response = await provider().complete(request({ structured: VERDICT, onText: () => undefined }), never);

      assert.equal(response.structured, broken);
      assert.equal(Verdict.safeParse(response.structured).success, false);
    });
  });

  describe('retries and failures', () => {
    it('retries a 429 and counts the retry', async () => {
      fake.enqueue(rateLimited(), textReply('ok'));
      const response = await provider().complete(request(), never);

      assert.equal(response.text, 'ok');
      assert.equal(response.retries, 1);
      assert.equal(fake.requests.length, 2);
    });

    it('counts retries on a streamed call too', async () => {
      fake.enqueue(overloaded(), internalError(), textReply('ok'));
      const response = await provider().complete(request({ onText: () => undefined }), never);
      assert.equal(response.retries, 2);
    });

    it('gives up on 529 once retries are spent, with a message naming the status', async () => {
      fake.enqueue(overloaded(), overloaded(), overloaded());
      const error = await failure(provider().complete(request(), never));

      assert.ok(error instanceof ModelTransportError, `got ${inspect(error)}`);
      assert.match(error.message, /^Anthropic API overloaded \(529\) after 2 retries/);
      assert.equal(error.retries, 2);
      assert.equal(error.status, 529);
      assert.equal(fake.requests.length, 3);
    });

    it('honours a configured maxRetries', async () => {
      fake.enqueue(overloaded(), overloaded());
      const error = await failure(provider({ maxRetries: 1 }).complete(request(), never));
      assert.match(error.message, /overloaded \(529\) after 1 retry\b/);
    });

    it('retries a 500 and reports it when it persists', async () => {
      fake.enqueue(internalError(), textReply('recovered'));
      assert.equal((await provider().complete(request(), never)).retries, 1);

      fake.enqueue(internalError(), internalError());
      const error = await failure(provider({ maxRetries: 1 }).complete(request(), never));
      assert.ok(error instanceof ModelTransportError);
      assert.match(error.message, /internal server error \(500\) after 1 retry/);
    });

    it('does not retry a 400, and says what the API refused', async () => {
      fake.enqueue(apiError(400, 'invalid_request_error', 'max_tokens: must be greater than thinking.budget_tokens'));
      const error = await failure(provider().complete(request(), never));
      assert.ok(error instanceof ModelTransportError);
      assert.match(error.message, /refused the request \(400 invalid_request_error\): max_tokens/);
      assert.equal(fake.requests.length, 1);
    });

    it("treats a rejected key (401) as the user's to fix", async () => {
      fake.enqueue(apiError(401, 'authentication_error', `invalid x-api-key ${API_KEY}`));
      const error = await failure(provider().complete(request(), never));
      assert.ok(error instanceof UserInputError);
      assert.match(error.message, /rejected the API key \(401\)/);
      assertNoKey(error);
    });

    it('retries a dropped connection, then reports it', async function () {
      // No retry-after on a dropped socket: the SDK backs off about half a second per retry.
      this.timeout(5000);
      fake.enqueue(dropConnection(), textReply('after the drop'));
      const recovered = await provider({ maxRetries: 1 }).complete(request(), never);
      assert.equal(recovered.text, 'after the drop');
      assert.equal(recovered.retries, 1);

      fake.enqueue(dropConnection());
      const error = await failure(provider({ maxRetries: 0 }).complete(request(), never));
      assert.ok(error instanceof ModelTransportError, `got ${inspect(error)}`);
      assert.match(error.message, /could not reach the Anthropic API \(.+\) after 0 retries/);
    });

    it('reports a connection dropped mid-stream', async () => {
      fake.enqueue(dropMidStream('partial'));
      const seen: string[] = [];
      const error = await failure(provider().complete(request({ onText: (d) => seen.push(d) }), never));
      assert.ok(error instanceof ModelTransportError, `got ${inspect(error)}`);
      assert.match(error.message, /^Anthropic API call failed: /);
      assert.deepEqual(seen, ['partial']);
    });

    it('reports a stream that ends without message_stop instead of returning half an answer', async () => {
      fake.enqueue(endEarly('half of the'));
      const error = await failure(provider().complete(request({ onText: () => undefined }), never));
      assert.ok(error instanceof ModelTransportError, `got ${inspect(error)}`);
      assert.match(error.message, /ended before message_stop/);
    });

    it('reports an error event inside a stream', async () => {
      fake.enqueue(streamError());
      const error = await failure(provider().complete(request({ onText: () => undefined }), never));
      assert.ok(error instanceof ModelTransportError, `got ${inspect(error)}`);
      assert.match(error.message, /stream failed mid-answer \(overloaded_error\)/);
    });
  });

  describe('time limits and cancellation', () => {
    it('stops a stalled stream at the per-call time limit', async () => {
      fake.enqueue(stall());
      const started = Date.now();
      const error = await failure(provider().complete(request({ timeoutMs: 300, onText: () => undefined }), never));

      assert.ok(error instanceof ModelTransportError, `got ${inspect(error)}`);
      assert.match(error.message, /timed out after 300 ms/);
      assert.ok(Date.now() - started < 2000, 'the limit must stop the call, not the test timeout');
    });

    it("stops a stalled JSON reply at the provider's default time limit, without retrying past it", async () => {
      fake.enqueue(stall());
      const error = await failure(provider({ timeoutMs: 250 }).complete(request(), never));
      assert.ok(error instanceof ModelTransportError);
      assert.match(error.message, /timed out after 250 ms/);
      assert.equal(fake.requests.length, 1);
    });

    it("cancels mid-stream through the caller's AbortSignal", async () => {
      fake.enqueue(stall('I will now explain at length'));
      const controller = new AbortController();
      const started = Date.now();
      const error = await failure(provider().complete(request({ onText: () => controller.abort() }), controller.signal));

      assert.ok(error instanceof CancelledError, `got ${inspect(error)}`);
      assert.ok(Date.now() - started < 2000);
    });

    it('does not start a call whose signal is already aborted', async () => {
      const controller = new AbortController();
      controller.abort();
      const error = await failure(provider().complete(request(), controller.signal));
      assert.ok(error instanceof CancelledError);
      assert.equal(fake.requests.length, 0);
    });

    it('lets an error thrown by onText through unchanged and stops the stream', async () => {
      fake.enqueue(stall('prose'));
      const watcherError = new Error('watcher failed');
      const error = await failure(
        provider().complete(
          request({
            onText: () => {
              throw watcherError;
            },
          }),
          never,
        ),
      );
      assert.equal(error, watcherError);
    });
  });

  describe('cost', () => {
    it('prices every kind of token from the table passed in', async () => {
      fake.enqueue(
        textReply('ok', {
          usage: { input_tokens: 1_000, output_tokens: 2_000, cache_read_input_tokens: 3_000, cache_creation_input_tokens: 4_000 },
        }),
      );
      const prices = { 'claude-test-1': { input: 2, output: 10, cacheRead: 0.5, cacheWrite: 3 } };
      const response = await provider({ model: 'claude-test-1', prices }).complete(request(), never);

      assert.deepEqual(response.usage, { inputTokens: 1_000, outputTokens: 2_000, cacheReadTokens: 3_000, cacheWriteTokens: 4_000 });
      // (1000*2 + 2000*10 + 3000*0.5 + 4000*3) / 1e6
      assert.equal(response.costUsd, 0.0355);
    });

    it('prices a streamed call from the default table, dated snapshots included', async () => {
      fake.enqueue(textReply('ok', { usage: { input_tokens: 1_000_000, output_tokens: 100_000 } }));
      const response = await provider({ model: 'claude-haiku-4-5-20251001' }).complete(request({ onText: () => undefined }), never);
      assert.equal(response.usage.outputTokens, 100_000);
      assert.equal(response.costUsd, 1 + 0.5);
    });

    it('keeps prices in one table, with cache reads at a tenth and writes at 1.25x of input', () => {
      const sonnet = priceFor('claude-sonnet-4-5', DEFAULT_PRICES);
      assert.ok(sonnet);
      assert.deepEqual(sonnet, { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 });
      assert.equal(priceFor('claude-unknown-9'), undefined);
      assert.equal(costOf({ inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 }, sonnet), 0);
    });

    it('refuses a model with no known price before any call', () => {
      assert.throws(
        () => provider({ model: 'claude-unknown-9' }),
        (e: unknown) => e instanceof UserInputError && /no price is known/.test(e.message),
      );
    });
  });

  describe('the API key', () => {
    it('never appears in an error or a response', async function () {
      this.timeout(5000);
      const model = provider({ maxRetries: 1 });
      fake.enqueue(overloaded(), overloaded());
      assertNoKey(await failure(model.complete(request(), never)));
      fake.enqueue(apiError(403, 'permission_error', `key ${API_KEY} may not use this model`));
      assertNoKey(await failure(model.complete(request(), never)));
      fake.enqueue(dropConnection(), dropConnection());
      assertNoKey(await failure(model.complete(request(), never)));
      fake.enqueue(stall());
      assertNoKey(await failure(model.complete(request({ timeoutMs: 100, onText: () => undefined }), never)));
      fake.enqueue(textReply('fine'));
      const response = await model.complete(request(), never);
      assertNoKey(response);
      assertNoKey(JSON.stringify(response));
      assertNoKey(model);
    });

    it('fails before any work when ANTHROPIC_API_KEY is missing, saying how to set it', () => {
      for (const env of [{}, { ANTHROPIC_API_KEY: '  ' }]) {
        assert.throws(
          () => createAnthropicProviderFromEnv(env),
          (e: unknown) =>
            e instanceof UserInputError && /ANTHROPIC_API_KEY is not set/.test(e.message) && /export ANTHROPIC_API_KEY=/.test(e.message),
        );
      }
      assert.equal(fake.requests.length, 0);
    });

    it('reads the key and ANTHROPIC_BASE_URL from the environment it is given', async () => {
      fake.enqueue(textReply('from env'));
      const model = createAnthropicProviderFromEnv({ ANTHROPIC_API_KEY: API_KEY, ANTHROPIC_BASE_URL: fake.baseURL }, { model: MODEL });
      const response = await model.complete(request(), never);
      assert.equal(response.text, 'from env');
      assert.equal(fake.requests[0]?.headers['authorization'], `Bearer ${API_KEY}`);
    });
  });
});

describe('structuredSpecFromZod', () => {
  it('describes what the schema accepts, without the $schema dialect', () => {
    const spec = structuredSpecFromZod('answer', 'The answer.', z.object({ value: z.number(), note: z.string().default('') }));
    assert.equal(spec.name, 'answer');
    assert.equal(spec.description, 'The answer.');
    assert.equal(spec.jsonSchema['type'], 'object');
    assert.equal(spec.jsonSchema['$schema'], undefined);
    assert.deepEqual(spec.jsonSchema['required'], ['value'], 'a field with a default may be left out by the model');
  });

  it('refuses a schema that is not an object, since tool input must be one', () => {
    assert.throws(() => structuredSpecFromZod('list', 'A list.', z.array(z.string())), /needs an object schema/);
  });
});
