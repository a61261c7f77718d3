import assert from 'node:assert/strict';
import Anthropic from '@anthropic-ai/sdk';
import type { MessageCreateParamsNonStreaming, Usage } from '@anthropic-ai/sdk/resources/messages';
import {
  approxTokens,
  cacheBreakpoints,
  cachePrefixText,
  endEarly,
  FakeAnthropic,
  overloaded,
  reply,
  text,
  textReply,
  toolUse,
  type FakeUsage,
  type RecordedRequest,
} from '../../support/fakeAnthropic';

const MODEL = 'claude-sonnet-4-6';
const EPHEMERAL = { type: 'ephemeral' } as const;

/** `chars` characters of prose-like text that differ with `seed`, so prefixes never collide by accident. */
function prose(seed: string, chars: number): string {
  let out = '';
  for (let i = 0; out.length < chars; i++) out += `${seed} line ${i}: the cached part of the prompt. `;
  return out.slice(0, chars);
}

// 6000 and 2000 characters: 1500 and 500 tokens at four characters a token, the system alone over the 1024 minimum.
const SYSTEM = prose('system', 6000);
const DOCUMENT = prose('document', 2000);
const SYSTEM_TOKENS = 1500;
const PREFIX_TOKENS = SYSTEM_TOKENS + 500;

/** A system breakpoint and a breakpoint on the document, then an uncached question. */
function cachedRequest(question: string, system = SYSTEM, document = DOCUMENT): MessageCreateParamsNonStreaming {
  return {
    model: MODEL,
    max_tokens: 1024,
    system: [{ type: 'text', text: system, cache_control: EPHEMERAL }],
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: document, cache_control: EPHEMERAL },
          { type: 'text', text: question },
        ],
      },
    ],
  };
}

const usageOf = (u: Usage): FakeUsage => ({
  input_tokens: u.input_tokens,
  output_tokens: u.output_tokens,
  cache_read_input_tokens: u.cache_read_input_tokens ?? 0,
  cache_creation_input_tokens: u.cache_creation_input_tokens ?? 0,
});

const last = (fake: FakeAnthropic): RecordedRequest => {
  const recorded = fake.requests.at(-1);
  assert.ok(recorded, 'the fake received no request');
  return recorded;
};

describe('fake Anthropic: measured usage and the prompt cache (real SDK)', function () {
  this.timeout(5000);
  let fake: FakeAnthropic;
  let client: Anthropic;

  before(async () => {
    fake = await FakeAnthropic.start({ measure: true });
    client = new Anthropic({ apiKey: 'test', baseURL: fake.baseURL, maxRetries: 0 });
  });
  after(async () => {
    await fake.close();
  });
  afterEach(function () {
    const leftover = fake.pending;
    fake.reset();
    fake.measureUsage();
    if (this.currentTest?.state === 'passed') assert.equal(leftover, 0, 'scripted replies were left unserved');
  });

  it('writes the cache on a first request: creation through the last breakpoint, nothing read', async () => {
    const answer = 'The document describes the cache.';
    fake.enqueue(textReply(answer));
    const message = await client.messages.create(cachedRequest('What does it describe?'));

    const expected: FakeUsage = {
      input_tokens: approxTokens('What does it describe?'),
      output_tokens: approxTokens(answer),
      cache_read_input_tokens: 0,
      cache_creation_input_tokens: PREFIX_TOKENS,
    };
    assert.deepEqual(usageOf(message.usage), expected);
    assert.deepEqual(last(fake).usage, expected);
    assert.deepEqual(cacheBreakpoints(last(fake)), [
      { where: 'system', index: 0, prefixTokens: SYSTEM_TOKENS },
      { where: 'message 0 block 0', index: 1, prefixTokens: PREFIX_TOKENS },
    ]);
  });

  it("reads the first request's prefix on a streamed second request with another tail", async () => {
    fake.enqueue(textReply('First.'), textReply('Second answer, streamed.', { chunkSize: 4 }));
    await client.messages.create(cachedRequest('First question?'));

    const stream = await client.messages.create({ ...cachedRequest('A different second question?'), stream: true });
    let startUsage: Usage | undefined;
    let deltaUsage: Record<string, unknown> | undefined;
    for await (const event of stream) {
      if (event.type === 'message_start') startUsage = event.message.usage;
      if (event.type === 'message_delta') deltaUsage = { ...event.usage };
    }

    assert.ok(startUsage && deltaUsage);
    assert.equal(startUsage.cache_read_input_tokens, PREFIX_TOKENS, 'message_start carries the cache numbers');
    assert.equal(startUsage.cache_creation_input_tokens, 0);
    assert.equal(startUsage.input_tokens, approxTokens('A different second question?'));
    assert.equal(deltaUsage['output_tokens'], approxTokens('Second answer, streamed.'), 'message_delta carries the output');
    assert.equal(deltaUsage['input_tokens'], undefined, 'message_delta leaves input to message_start, as the provider merges it');
    assert.deepEqual(last(fake).usage, {
      input_tokens: approxTokens('A different second question?'),
      output_tokens: approxTokens('Second answer, streamed.'),
      cache_read_input_tokens: PREFIX_TOKENS,
      cache_creation_input_tokens: 0,
    });
    assert.equal(cachePrefixText(fake.requests[0] as RecordedRequest, -1), cachePrefixText(last(fake), -1));
  });

  it('writes only what follows the read prefix when a later turn adds a breakpoint (SDK stream helper)', async () => {
    fake.enqueue(textReply('First.'), textReply('Go on.'));
    await client.messages.create(cachedRequest('First question?'));

    const first = cachedRequest('First question?');
    const followUp = prose('follow-up', 400);
    const stream = client.messages.stream({
      ...first,
      messages: [
        ...first.messages,
        { role: 'assistant', content: 'First.' },
        { role: 'user', content: [{ type: 'text', text: followUp, cache_control: EPHEMERAL }] },
      ],
    });
    const message = await stream.finalMessage();

    // The new breakpoint's prefix: the question and the answer it did not cache before, and the follow-up.
    const written = approxTokens('First question?') + approxTokens('First.') + approxTokens(followUp);
    assert.deepEqual(usageOf(message.usage), {
      input_tokens: 0,
      output_tokens: approxTokens('Go on.'),
      cache_read_input_tokens: PREFIX_TOKENS,
      cache_creation_input_tokens: written,
    });
    assert.deepEqual(
      cacheBreakpoints(last(fake)).map((b) => b.where),
      ['system', 'message 0 block 0', 'message 2 block 0'],
    );
  });

  it('misses when one byte before the breakpoint changes, and reads up to the change', async () => {
    fake.enqueue(textReply('a'), textReply('b'), textReply('c'));
    await client.messages.create(cachedRequest('Q?'));

    const oneByteOff = `${DOCUMENT.slice(0, 1000)}X${DOCUMENT.slice(1001)}`;
    const documentOff = usageOf((await client.messages.create(cachedRequest('Q?', SYSTEM, oneByteOff))).usage);
    assert.equal(documentOff.cache_read_input_tokens, SYSTEM_TOKENS, 'the system breakpoint before the change still reads');
    assert.equal(documentOff.cache_creation_input_tokens, PREFIX_TOKENS - SYSTEM_TOKENS);

    const systemOff = `${SYSTEM.slice(0, 10)}Y${SYSTEM.slice(11)}`;
    const missed = usageOf((await client.messages.create(cachedRequest('Q?', systemOff))).usage);
    assert.equal(missed.cache_read_input_tokens, 0);
    assert.equal(missed.cache_creation_input_tokens, PREFIX_TOKENS);
    assert.notEqual(cachePrefixText(fake.requests[0] as RecordedRequest, 0), cachePrefixText(last(fake), 0));
  });

  it('never caches a prefix under the minimum, and honours a lower minimum when asked', async () => {
    const short = (q: string): MessageCreateParamsNonStreaming => ({
      model: MODEL,
      max_tokens: 100,
      system: [{ type: 'text', text: prose('short', 400), cache_control: EPHEMERAL }],
      messages: [{ role: 'user', content: q }],
    });
    const everything = approxTokens(prose('short', 400)) + approxTokens('Hi?');
    fake.enqueue(textReply('1'), textReply('2'));
    for (let i = 0; i < 2; i++) {
      const usage = usageOf((await client.messages.create(short('Hi?'))).usage);
      assert.deepEqual(usage, { input_tokens: everything, output_tokens: 1, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 });
    }

    fake.measureUsage({ minCacheTokens: 50 });
    fake.enqueue(textReply('3'), textReply('4'));
    assert.equal((await client.messages.create(short('Hi?'))).usage.cache_creation_input_tokens, 100);
    assert.equal((await client.messages.create(short('Hi?'))).usage.cache_read_input_tokens, 100);
  });

  it('writes nothing for a refused request, so the retry that repeats its prefix writes it', async () => {
    const retrying = new Anthropic({ apiKey: 'test', baseURL: fake.baseURL, maxRetries: 1 });
    fake.enqueue(overloaded(), textReply('ok'));
    await retrying.messages.create(cachedRequest('Q?'));

    const [refused, retry] = fake.requests;
    assert.ok(refused && retry);
    assert.equal(refused.usage, undefined);
    assert.equal(cachePrefixText(retry, 0), cachePrefixText(refused, 0));
    assert.equal(cachePrefixText(retry, 1), cachePrefixText(refused, 1));
    assert.equal(retry.usage?.cache_read_input_tokens, 0);
    assert.equal(retry.usage?.cache_creation_input_tokens, PREFIX_TOKENS);
  });

  it('writes the cache for a stream that began to answer, even one cut short', async () => {
    fake.enqueue(endEarly('Half an'), textReply('Whole answer.'));
    const cut = await client.messages.create({ ...cachedRequest('Q?'), stream: true });
    for await (const _event of cut) {
      // Drained: the stream ends without message_stop.
    }
    assert.deepEqual(last(fake).usage, {
      input_tokens: approxTokens('Q?'),
      output_tokens: 0,
      cache_read_input_tokens: 0,
      cache_creation_input_tokens: PREFIX_TOKENS,
    });

    const again = await client.messages.create(cachedRequest('Q?'));
    assert.equal(again.usage.cache_read_input_tokens, PREFIX_TOKENS);
  });

  it('lists breakpoints on tools and tool results, and leaves the marker out of the prefix', async () => {
    const tool = { name: 'run_tests', description: prose('tool', 4400), input_schema: { type: 'object' as const, properties: {} } };
    const call = toolUse('run_tests', { files: ['a.ts'] });
    fake.enqueue(reply([text('Running.'), call]));
    await client.messages.create({
      model: MODEL,
      max_tokens: 100,
      tools: [{ ...tool, cache_control: EPHEMERAL }],
      system: 'Plain system text.',
      messages: [
        { role: 'user', content: 'Run them.' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'run_tests', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: '3 passed', cache_control: EPHEMERAL }] },
      ],
    });

    const breakpoints = cacheBreakpoints(last(fake));
    assert.deepEqual(
      breakpoints.map((b) => b.where),
      ['tools', 'message 2 block 0'],
    );
    assert.equal(breakpoints[0]?.prefixTokens, approxTokens(JSON.stringify(tool)));
    const prefix = cachePrefixText(last(fake), -1);
    assert.ok(!prefix.includes('cache_control'));
    assert.ok(prefix.startsWith(cachePrefixText(last(fake), 0)), 'a later prefix extends an earlier one');
    assert.equal(last(fake).usage?.output_tokens, approxTokens('Running.') + approxTokens(JSON.stringify({ files: ['a.ts'] })));
    assert.throws(() => cachePrefixText(last(fake), 2), /2 cache breakpoint\(s\), not one at 2/);
  });

  it('drops cached messages but keeps the system prefix when thinking or tool_choice changes', async () => {
    fake.enqueue(textReply('a'), textReply('b'));
    await client.messages.create(cachedRequest('Q?'));
    const thinkingOn = await client.messages.create({
      ...cachedRequest('Q?'),
      max_tokens: 3000,
      thinking: { type: 'enabled', budget_tokens: 2000 },
    });
    assert.equal(thinkingOn.usage.cache_read_input_tokens, SYSTEM_TOKENS);
    assert.equal(thinkingOn.usage.cache_creation_input_tokens, PREFIX_TOKENS - SYSTEM_TOKENS);
  });

  it('finds an earlier entry up to 20 blocks before a breakpoint, as the API looks back', async () => {
    // The breakpoint moves from the document to the newest of `turns` messages: `turns + 1` blocks later.
    const movedOn = (turns: number): MessageCreateParamsNonStreaming => {
      const base = cachedRequest('Q?');
      const history = Array.from({ length: turns }, (_, i) => ({
        role: i % 2 === 0 ? ('assistant' as const) : ('user' as const),
        content: [{ type: 'text' as const, text: `turn ${i}`, ...(i === turns - 1 ? { cache_control: EPHEMERAL } : {}) }],
      }));
      const opening = {
        role: 'user' as const,
        content: [
          { type: 'text' as const, text: DOCUMENT },
          { type: 'text' as const, text: 'Q?' },
        ],
      };
      return { ...base, messages: [opening, ...history] };
    };
    const throughLastBreakpoint = () => cacheBreakpoints(last(fake)).at(-1)?.prefixTokens ?? 0;
    fake.enqueue(textReply('a'), textReply('b'), textReply('c'));
    await client.messages.create(cachedRequest('Q?'));

    const far = await client.messages.create(movedOn(20));
    assert.equal(far.usage.cache_read_input_tokens, SYSTEM_TOKENS, '21 blocks back is out of reach; the system breakpoint still reads');
    assert.equal(far.usage.cache_creation_input_tokens, throughLastBreakpoint() - SYSTEM_TOKENS);

    const near = await client.messages.create(movedOn(19));
    assert.equal(near.usage.cache_read_input_tokens, PREFIX_TOKENS, '20 blocks back is found, though the document is no longer marked');
    assert.equal(near.usage.cache_creation_input_tokens, throughLastBreakpoint() - PREFIX_TOKENS);
  });

  it('refuses more than four breakpoints without taking a scripted reply', async () => {
    const five = cachedRequest('Q?');
    five.messages = [
      { role: 'user', content: ['a', 'b', 'c', 'd'].map((t) => ({ type: 'text' as const, text: t, cache_control: EPHEMERAL })) },
    ];
    fake.enqueue(textReply('for the next request'));
    await assert.rejects(client.messages.create(five), /A maximum of 4 blocks with cache_control may be provided\. Found 5\./);
    assert.equal(fake.pending, 1);
    assert.equal((await client.messages.create(cachedRequest('Q?'))).content[0]?.type, 'text');
  });

  it('reports usage fields the script gave explicitly as given', async () => {
    fake.enqueue(textReply('counted', { usage: { output_tokens: 999 } }));
    const message = await client.messages.create(cachedRequest('Q?'));
    assert.equal(message.usage.output_tokens, 999);
    assert.equal(message.usage.cache_creation_input_tokens, PREFIX_TOKENS);
  });

  it('is off by default: the scripted numbers, whatever the request', async () => {
    const plain = await FakeAnthropic.start();
    try {
      const plainClient = new Anthropic({ apiKey: 'test', baseURL: plain.baseURL, maxRetries: 0 });
      plain.enqueue(textReply('one'), textReply('two', { chunkSize: 2 }), textReply('three', { usage: { input_tokens: 120 } }));
      const scripted = { input_tokens: 12, output_tokens: 34, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };
      assert.deepEqual(usageOf((await plainClient.messages.create(cachedRequest('Q?'))).usage), scripted);
      assert.deepEqual(
        usageOf(
          await plainClient.messages
            .stream(cachedRequest('Q?'))
            .finalMessage()
            .then((m) => m.usage),
        ),
        scripted,
      );
      assert.deepEqual(usageOf((await plainClient.messages.create(cachedRequest('Q?'))).usage), { ...scripted, input_tokens: 120 });
      assert.ok(plain.requests.every((r) => r.usage === undefined));
    } finally {
      await plain.close();
    }
  });
});
