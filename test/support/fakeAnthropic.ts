import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local fake of the Anthropic Messages API, for running the real SDK in tests. It serves
 * a queue of scripted replies, one per HTTP request (an SDK retry takes the next one), as a
 * JSON body or, when the request asks to stream, as server-sent events in the API's own
 * event format. It records every request it received.
 *
 * Usage is scripted unless `measureUsage` is on: then the fake counts each request's tokens
 * and plays the prompt cache (see `MeasureOptions`), so a test can see what a request would
 * read from and write to the cache.
 */

export type FakeBlock =
  | { type: 'text'; text: string }
  | { type: 'thinking'; thinking: string; signature: string }
  /** `rawJson`, when given, is streamed instead of the JSON of `input` (it may be malformed). */
  | { type: 'tool_use'; id: string; name: string; input: unknown; rawJson?: string };

export interface FakeUsage {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
}

export interface FakeMessage {
  kind: 'message';
  content: FakeBlock[];
  stopReason: 'end_turn' | 'max_tokens' | 'tool_use' | 'stop_sequence';
  usage: FakeUsage;
  /** Characters per text, thinking or JSON delta when streamed. */
  chunkSize: number;
  /** The usage fields the script gave: when usage is measured, these are still reported as given. */
  explicitUsage?: Partial<FakeUsage>;
}

export type FakeReply =
  | FakeMessage
  | { kind: 'error'; status: number; type: string; message: string; headers: Record<string, string> }
  /** The socket is destroyed: before any response, or (midStream) after message_start and `text`. */
  | { kind: 'drop'; midStream: boolean; text: string }
  /** A stream sends message_start (and `text`), then ends cleanly without message_stop. */
  | { kind: 'endEarly'; text: string }
  /** A stream sends message_start (and `text`), then nothing; a JSON reply sends nothing. */
  | { kind: 'stall'; text: string }
  /** A stream that starts, then reports an `event: error`, as the API does when it overloads mid-answer. */
  | { kind: 'streamError'; type: string; message: string }
  /** A text answer streamed slowly: `chunkSize` characters every `intervalMs`, until done or the client goes away. */
  | { kind: 'paced'; text: string; chunkSize: number; intervalMs: number };

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** The parsed JSON body. */
  body: Record<string, unknown>;
  /** The client closed the connection before the reply was complete (an abort mid-stream). */
  closedEarly: boolean;
  /** Characters of text the reply has streamed so far (paced replies). */
  streamedChars: number;
  /**
   * With `measureUsage` on, the usage the fake reported for this request, once it began to
   * answer (a refused or dropped request has none). A reply scripted to break off (drop,
   * stall, endEarly, streamError) reports 0 output tokens.
   */
  usage?: FakeUsage;
}

let ids = 0;
const nextId = (prefix: string) => `${prefix}_fake${String(++ids).padStart(4, '0')}`;

export const text = (value: string): FakeBlock => ({ type: 'text', text: value });
export const thinking = (value: string): FakeBlock => ({ type: 'thinking', thinking: value, signature: `sig-${value.length}` });
export const toolUse = (name: string, input: unknown, rawJson?: string): FakeBlock => ({
  type: 'tool_use',
  id: nextId('toolu'),
  name,
  input,
  ...(rawJson !== undefined ? { rawJson } : {}),
});

export interface ReplyOptions {
  stopReason?: FakeMessage['stopReason'];
  usage?: Partial<FakeUsage>;
  chunkSize?: number;
}

export function reply(content: FakeBlock[], options: ReplyOptions = {}): FakeMessage {
  const toolCall = content.some((b) => b.type === 'tool_use');
  return {
    kind: 'message',
    content,
    stopReason: options.stopReason ?? (toolCall ? 'tool_use' : 'end_turn'),
    usage: { input_tokens: 12, output_tokens: 34, cache_read_input_tokens: 0, cache_creation_input_tokens: 0, ...options.usage },
    chunkSize: options.chunkSize ?? 7,
    ...(options.usage ? { explicitUsage: options.usage } : {}),
  };
}

export const textReply = (value: string, options?: ReplyOptions) => reply([text(value)], options);

/** The API's error body, with its status. `retry-after` is in seconds; keep it tiny so tests stay fast. */
export function apiError(status: number, type: string, message: string, headers: Record<string, string> = {}): FakeReply {
  return { kind: 'error', status, type, message, headers };
}

/**
 * The SDK ignores `retry-after: 0` (it falls back to its own backoff of half a second and
 * up), so a fast retry needs a small positive value.
 */
export const rateLimited = (retryAfterSeconds = '0.001') =>
  apiError(429, 'rate_limit_error', 'Number of request tokens has exceeded your per-minute rate limit', {
    'retry-after': retryAfterSeconds,
  });
export const overloaded = (retryAfterSeconds = '0.001') =>
  apiError(529, 'overloaded_error', 'Overloaded', { 'retry-after': retryAfterSeconds });
export const internalError = (retryAfterSeconds = '0.001') =>
  apiError(500, 'api_error', 'Internal server error', { 'retry-after': retryAfterSeconds });
export const dropConnection = (): FakeReply => ({ kind: 'drop', midStream: false, text: '' });
export const dropMidStream = (textFirst = ''): FakeReply => ({ kind: 'drop', midStream: true, text: textFirst });
export const endEarly = (textFirst = ''): FakeReply => ({ kind: 'endEarly', text: textFirst });
export const stall = (textFirst = ''): FakeReply => ({ kind: 'stall', text: textFirst });
export const streamError = (): FakeReply => ({ kind: 'streamError', type: 'overloaded_error', message: 'Overloaded' });
/** `text` streamed over about `overMs`, for stops that must take effect while a huge answer is still coming. */
export const pacedText = (text: string, overMs: number, intervalMs = 100): FakeReply => ({
  kind: 'paced',
  text,
  intervalMs,
  chunkSize: Math.max(1, Math.ceil(text.length / Math.max(1, overMs / intervalMs))),
});

/**
 * The API's rate limit on concurrent requests, as the fake plays it: a request that arrives
 * while `max` are open is answered 429 with `retry-after`, as the API does past a limit.
 */
export interface ConcurrencyLimit {
  max: number;
  retryAfterSeconds: string;
}

/**
 * Measured usage, and the prompt cache as the fake plays it. The request's blocks are, in the
 * API's order: each tool definition, each system block, then each content block of each
 * message (a string counts as one text block). A block carrying `cache_control` is a
 * breakpoint; the prefix through it, serialized canonically (`cachePrefixText`), is what the
 * cache stores and matches byte for byte. A request reads the longest stored prefix it repeats,
 * found at a breakpoint or up to `lookbackBlocks` blocks before one; it writes from there
 * through its last breakpoint unless that prefix was read; the rest is plain input. A prefix
 * under `minCacheTokens` is never cached.
 */
export interface MeasureOptions {
  /** The API's smallest cacheable prefix: 1024 tokens for Sonnet and Opus 4; some models ask 2048 or 4096. */
  minCacheTokens?: number;
  /** How many blocks before a breakpoint the API looks for an earlier entry (it documents 20). */
  lookbackBlocks?: number;
  /** More breakpoints than this in one request are refused with a 400, as the API refuses them. */
  maxBreakpoints?: number;
  /** Tokens of one block's text. The default is `approxTokens`. */
  countTokens?: (text: string) => number;
}

/**
 * ceil(chars / 4), not `countTokens` of @anthropic-ai/tokenizer: that builds a new tokenizer
 * on every call, which took about 60 ms for a few words and 150 to 700 ms for a 100 KB prompt
 * when measured, too slow for a fake answering many calls per test. A test that needs the
 * real tokenizer's numbers can pass its own counter (a `getTokenizer()` kept open encodes
 * 100 KB in about 20 ms, after a one-off cost of about 150 ms).
 */
export const approxTokens = (text: string): number => Math.ceil(text.length / 4);

/** Where a breakpoint sits: a tool definition, a system block, or block j of message i. */
export type BreakpointPlace = 'tools' | 'system' | `message ${number} block ${number}`;

export interface CacheBreakpoint {
  where: BreakpointPlace;
  /** The block's position among all the request's blocks (tools, then system, then messages). */
  index: number;
  /** Tokens from the start of the request through this block. */
  prefixTokens: number;
}

interface CacheBlock {
  where: BreakpointPlace;
  breakpoint: boolean;
  prefixTokens: number;
  /** Where this block's line ends in the canonical text. */
  end: number;
}

interface CacheLayout {
  text: string;
  blocks: CacheBlock[];
  breakpoints: number[];
  totalTokens: number;
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const isBreakpoint = (block: unknown) =>
  isObject(block) && isObject(block['cache_control']) && block['cache_control']['type'] === 'ephemeral';
const asBlocks = (content: unknown): unknown[] =>
  typeof content === 'string' ? [{ type: 'text', text: content }] : Array.isArray(content) ? content : [];

/** The marker is not part of what is cached: moving a breakpoint must not change the prefix before it. */
function withoutCacheControl(block: unknown): unknown {
  if (!isObject(block)) return block;
  const { cache_control: _marker, ...rest } = block;
  if (rest['type'] === 'tool_result' && Array.isArray(rest['content'])) rest['content'] = rest['content'].map(withoutCacheControl);
  return rest;
}

/** What the model reads of a block: its text where it has one, its JSON otherwise. */
function blockText(block: unknown): string {
  if (!isObject(block)) return JSON.stringify(block) ?? '';
  if (block['type'] === 'text' && typeof block['text'] === 'string') return block['text'];
  if (block['type'] === 'thinking' && typeof block['thinking'] === 'string') return block['thinking'];
  if (block['type'] === 'tool_result') return asBlocks(block['content']).map(blockText).join('');
  return JSON.stringify(withoutCacheControl(block));
}

/**
 * One line per block, each a JSON array, after a first line naming the model: a prefix of the
 * request is a prefix of this text. A line of settings sits between system and messages
 * because the API drops cached messages, but not tools or system, when tool_choice or
 * thinking changes.
 */
function cacheLayout(body: Json, count: (text: string) => number): CacheLayout {
  const model = typeof body['model'] === 'string' ? body['model'] : 'claude-fake';
  let text = `${JSON.stringify({ model })}\n`;
  const blocks: CacheBlock[] = [];
  let prefixTokens = 0;
  const add = (where: BreakpointPlace, block: unknown, line: unknown[]) => {
    prefixTokens += count(blockText(block));
    text += `${JSON.stringify(line)}\n`;
    blocks.push({ where, breakpoint: isBreakpoint(block), prefixTokens, end: text.length });
  };
  for (const tool of Array.isArray(body['tools']) ? body['tools'] : []) add('tools', tool, ['tools', withoutCacheControl(tool)]);
  for (const block of asBlocks(body['system'])) add('system', block, ['system', withoutCacheControl(block)]);
  text += `${JSON.stringify(['settings', { tool_choice: body['tool_choice'], thinking: body['thinking'] }])}\n`;
  const messages = Array.isArray(body['messages']) ? body['messages'] : [];
  messages.forEach((message: unknown, i) => {
    const role = isObject(message) ? message['role'] : undefined;
    asBlocks(isObject(message) ? message['content'] : undefined).forEach((block, j) =>
      add(`message ${i} block ${j}`, block, ['message', i, role, withoutCacheControl(block)]),
    );
  });
  const breakpoints = blocks.flatMap((b, index) => (b.breakpoint ? [index] : []));
  return { text, blocks, breakpoints, totalTokens: prefixTokens };
}

/** The request's breakpoints, in order, with the tokens of the prefix each one ends. */
export function cacheBreakpoints(request: RecordedRequest, countTokens: (text: string) => number = approxTokens): CacheBreakpoint[] {
  const { blocks, breakpoints } = cacheLayout(request.body, countTokens);
  return breakpoints.map((index) => {
    const block = blocks[index] as CacheBlock;
    return { where: block.where, index, prefixTokens: block.prefixTokens };
  });
}

/**
 * The canonical text of the prefix through the request's `breakpoint`-th breakpoint (from 0;
 * negative counts from the last): the bytes the cache matches on. Two requests share a cache
 * entry exactly when these are equal.
 */
export function cachePrefixText(request: RecordedRequest, breakpoint: number): string {
  const { text, blocks, breakpoints } = cacheLayout(request.body, () => 0);
  const index = breakpoints.at(breakpoint);
  if (index === undefined) throw new Error(`the request has ${breakpoints.length} cache breakpoint(s), not one at ${breakpoint}`);
  return text.slice(0, (blocks[index] as CacheBlock).end);
}

interface CacheLookup {
  usage: Omit<FakeUsage, 'output_tokens'>;
  /** The prefixes this request writes, once it begins to answer. */
  writes: string[];
}

export class FakeAnthropic {
  readonly requests: RecordedRequest[] = [];
  private readonly queue: FakeReply[] = [];
  private responder: ((request: RecordedRequest) => FakeReply) | undefined;
  private limit: ConcurrencyLimit | undefined;
  private latencyMs = 0;
  private measure: Required<MeasureOptions> | undefined;
  /** Prefixes written since the start or the last reset, as their canonical text. */
  private readonly cache = new Set<string>();
  private open = 0;
  /** The most requests open at once (the 429s included). */
  peakOpen = 0;
  /** Requests answered 429 by the concurrency limit. */
  rateLimited = 0;

  private readonly server: Server = createServer((req, res) => void this.handle(req, res));

  private constructor() {}

  static async start(options: { measure?: MeasureOptions | boolean } = {}): Promise<FakeAnthropic> {
    const fake = new FakeAnthropic();
    if (options.measure) fake.measureUsage(options.measure === true ? {} : options.measure);
    await new Promise<void>((resolve) => fake.server.listen(0, '127.0.0.1', resolve));
    return fake;
  }

  get baseURL(): string {
    const { port } = this.server.address() as AddressInfo;
    return `http://127.0.0.1:${port}`;
  }

  /** Replies not served yet: a test that scripted exactly what it needed ends at zero. */
  get pending(): number {
    return this.queue.length;
  }

  enqueue(...replies: FakeReply[]): this {
    this.queue.push(...replies);
    return this;
  }

  /** Answers every request the queue has no reply for (many runs' calls, in any order). */
  respondWith(responder: (request: RecordedRequest) => FakeReply): this {
    this.responder = responder;
    return this;
  }

  /** 429 above `max` open requests; every other reply waits `latencyMs` first (the model's time to answer). */
  limitConcurrency(limit: ConcurrencyLimit, latencyMs = 0): this {
    this.limit = limit;
    this.latencyMs = latencyMs;
    return this;
  }

  /**
   * Counts each request's tokens and plays the prompt cache instead of reporting the scripted
   * usage; the usage fields a reply gave explicitly are still reported as given. `false`
   * goes back to scripted usage.
   */
  measureUsage(options: MeasureOptions | false = {}): this {
    this.measure = options
      ? {
          minCacheTokens: options.minCacheTokens ?? 1024,
          lookbackBlocks: options.lookbackBlocks ?? 20,
          maxBreakpoints: options.maxBreakpoints ?? 4,
          countTokens: options.countTokens ?? approxTokens,
        }
      : undefined;
    return this;
  }

  /** Forgets requests, unserved replies and the prompt cache, between tests. */
  reset(): void {
    this.requests.length = 0;
    this.queue.length = 0;
    this.cache.clear();
  }

  async close(): Promise<void> {
    // Stalled replies hold their sockets open; close would wait for them forever.
    this.server.closeAllConnections();
    await new Promise<void>((resolve, reject) => this.server.close((err) => (err ? reject(err) : resolve())));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req);
    const body = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
    const record: RecordedRequest = {
      method: req.method ?? '',
      path: req.url ?? '',
      headers: req.headers,
      body,
      closedEarly: false,
      streamedChars: 0,
    };
    this.requests.push(record);
    this.open++;
    this.peakOpen = Math.max(this.peakOpen, this.open);
    res.on('close', () => {
      this.open--;
      record.closedEarly = !res.writableFinished;
    });
    if (this.limit && this.open > this.limit.max) {
      this.rateLimited++;
      sendError(res, 429, 'rate_limit_error', `fake Anthropic: more than ${this.limit.max} concurrent requests`, {
        'retry-after': this.limit.retryAfterSeconds,
      });
      return;
    }
    const layout = this.measure && cacheLayout(body, this.measure.countTokens);
    if (this.measure && layout && layout.breakpoints.length > this.measure.maxBreakpoints) {
      // Refused before any scripted reply is taken, as the API refuses it before the model runs.
      const message = `A maximum of ${this.measure.maxBreakpoints} blocks with cache_control may be provided. Found ${layout.breakpoints.length}.`;
      sendError(res, 400, 'invalid_request_error', message, {});
      return;
    }
    // Looked up on arrival: a request sent while another with the same prefix is still
    // waiting for its answer misses, as it does at the API.
    const lookup = this.measure && layout ? this.lookUp(layout, this.measure) : undefined;
    if (this.latencyMs) await new Promise((r) => setTimeout(r, this.latencyMs));
    const next = this.queue.shift() ?? this.responder?.(record);
    if (!next) {
      // 400 is not retried, so an unscripted call fails at once with a message that says why.
      sendError(res, 400, 'invalid_request_error', 'fake Anthropic: no scripted reply left for this request', {});
      return;
    }
    const streaming = body['stream'] === true;
    const model = typeof body['model'] === 'string' ? body['model'] : 'claude-fake';
    const count = this.measure?.countTokens ?? approxTokens;
    // The API writes the cache once it begins to answer: a refused or dropped request writes nothing.
    const answer = (outputTokens: number, explicit: Partial<FakeUsage> = {}): FakeUsage | undefined => {
      if (!lookup) return undefined;
      for (const prefix of lookup.writes) this.cache.add(prefix);
      record.usage = { ...lookup.usage, output_tokens: outputTokens, ...explicit };
      return record.usage;
    };
    switch (next.kind) {
      case 'error':
        sendError(res, next.status, next.type, next.message, next.headers);
        return;
      case 'drop':
        if (next.midStream && streaming) {
          startStream(res, model, next.text, answer(0));
          // Let the bytes already written reach the client before the reset.
          setTimeout(() => res.socket?.destroy(), 20);
        } else {
          req.socket.destroy();
        }
        return;
      case 'stall':
        if (streaming) startStream(res, model, next.text, answer(0));
        return;
      case 'endEarly':
        startStream(res, model, next.text, answer(0));
        res.end();
        return;
      case 'streamError':
        startStream(res, model, '', answer(0));
        sendEvent(res, 'error', { type: 'error', error: { type: next.type, message: next.message } });
        res.end();
        return;
      case 'message': {
        const usage = answer(outputTokens(next, count), next.explicitUsage) ?? next.usage;
        if (streaming) sendStream(res, model, next, usage);
        else sendJson(res, 200, messageJson(model, next, usage));
        return;
      }
      case 'paced':
        sendPaced(res, model, next, record, count(next.text), answer(count(next.text)));
        return;
    }
  }

  private lookUp(layout: CacheLayout, measure: Required<MeasureOptions>): CacheLookup {
    const { text, blocks, breakpoints, totalTokens } = layout;
    const block = (index: number) => blocks[index] as CacheBlock;
    const prefix = (index: number) => text.slice(0, block(index).end);
    let read = -1;
    for (const breakpoint of breakpoints) {
      for (let i = breakpoint; i >= Math.max(0, breakpoint - measure.lookbackBlocks) && i > read; i--) {
        if (this.cache.has(prefix(i))) {
          read = i;
          break;
        }
      }
    }
    const readTokens = read >= 0 ? block(read).prefixTokens : 0;
    const last = breakpoints.at(-1);
    const writesLast = last !== undefined && last !== read && block(last).prefixTokens >= measure.minCacheTokens;
    const creationTokens = writesLast ? block(last).prefixTokens - readTokens : 0;
    return {
      usage: {
        input_tokens: totalTokens - readTokens - creationTokens,
        cache_read_input_tokens: readTokens,
        cache_creation_input_tokens: creationTokens,
      },
      writes: breakpoints.filter((i) => block(i).prefixTokens >= measure.minCacheTokens).map(prefix),
    };
  }
}

/** Tokens of what the reply says: its text, its thinking, and the JSON its tool calls stream. */
function outputTokens(message: FakeMessage, count: (text: string) => number): number {
  const said = message.content.map((b) =>
    b.type === 'text' ? b.text : b.type === 'thinking' ? b.thinking : (b.rawJson ?? JSON.stringify(b.input)),
  );
  return said.reduce((sum, piece) => sum + count(piece), 0);
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', 'request-id': nextId('req'), ...headers });
  res.end(JSON.stringify(body));
}

function sendError(res: ServerResponse, status: number, type: string, message: string, headers: Record<string, string>): void {
  sendJson(res, status, { type: 'error', error: { type, message }, request_id: nextId('req') }, headers);
}

function messageJson(model: string, message: FakeMessage, usage: FakeUsage) {
  return {
    id: nextId('msg'),
    type: 'message',
    role: 'assistant',
    model,
    content: message.content.map(withoutRawJson),
    stop_reason: message.stopReason,
    stop_sequence: null,
    usage,
  };
}

function withoutRawJson(block: FakeBlock): Omit<FakeBlock, 'rawJson'> {
  if (block.type !== 'tool_use') return block;
  const { rawJson: _streamedOnly, ...toolBlock } = block;
  return toolBlock;
}

function sendEvent(res: ServerResponse, event: string, data: unknown): void {
  res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}

function startStream(res: ServerResponse, model: string, textFirst: string, usage?: FakeUsage): void {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'request-id': nextId('req') });
  const startUsage = usage ?? reply([]).usage;
  sendEvent(res, 'message_start', {
    type: 'message_start',
    message: {
      id: nextId('msg'),
      type: 'message',
      role: 'assistant',
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { ...startUsage, output_tokens: 1 },
    },
  });
  if (textFirst) {
    sendEvent(res, 'content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
    sendEvent(res, 'content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: textFirst } });
  }
}

function sendStream(res: ServerResponse, model: string, message: FakeMessage, usage: FakeUsage): void {
  startStream(res, model, '', usage);
  sendEvent(res, 'ping', { type: 'ping' });
  message.content.forEach((block, index) => {
    const delta = (d: Record<string, unknown>) => sendEvent(res, 'content_block_delta', { type: 'content_block_delta', index, delta: d });
    switch (block.type) {
      case 'text':
        sendEvent(res, 'content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
        for (const piece of chunks(block.text, message.chunkSize)) delta({ type: 'text_delta', text: piece });
        break;
      case 'thinking':
        sendEvent(res, 'content_block_start', {
          type: 'content_block_start',
          index,
          content_block: { type: 'thinking', thinking: '', signature: '' },
        });
        for (const piece of chunks(block.thinking, message.chunkSize)) delta({ type: 'thinking_delta', thinking: piece });
        delta({ type: 'signature_delta', signature: block.signature });
        break;
      case 'tool_use':
        sendEvent(res, 'content_block_start', {
          type: 'content_block_start',
          index,
          content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} },
        });
        for (const piece of chunks(block.rawJson ?? JSON.stringify(block.input), message.chunkSize)) {
          delta({ type: 'input_json_delta', partial_json: piece });
        }
        break;
    }
    sendEvent(res, 'content_block_stop', { type: 'content_block_stop', index });
  });
  sendEvent(res, 'message_delta', {
    type: 'message_delta',
    delta: { stop_reason: message.stopReason, stop_sequence: null },
    usage: { output_tokens: usage.output_tokens },
  });
  sendEvent(res, 'message_stop', { type: 'message_stop' });
  res.end();
}

function sendPaced(
  res: ServerResponse,
  model: string,
  reply: Extract<FakeReply, { kind: 'paced' }>,
  record: RecordedRequest,
  outputTokens: number,
  usage: FakeUsage | undefined,
): void {
  startStream(res, model, '', usage);
  sendEvent(res, 'content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
  const timer = setInterval(() => {
    if (res.destroyed) return void clearInterval(timer);
    const piece = reply.text.slice(record.streamedChars, record.streamedChars + reply.chunkSize);
    record.streamedChars += piece.length;
    sendEvent(res, 'content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: piece } });
    if (record.streamedChars < reply.text.length) return;
    clearInterval(timer);
    sendEvent(res, 'content_block_stop', { type: 'content_block_stop', index: 0 });
    sendEvent(res, 'message_delta', {
      type: 'message_delta',
      delta: { stop_reason: 'end_turn', stop_sequence: null },
      usage: { output_tokens: outputTokens },
    });
    sendEvent(res, 'message_stop', { type: 'message_stop' });
    res.end();
  }, reply.intervalMs);
  res.on('close', () => clearInterval(timer));
}

function chunks(value: string, size: number): string[] {
  const pieces: string[] = [];
  for (let i = 0; i < value.length; i += size) pieces.push(value.slice(i, i + size));
  return pieces;
}
