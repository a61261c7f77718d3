import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local fake of the Anthropic Messages API, for running the real SDK in tests. It serves
 * a queue of scripted replies, one per HTTP request (an SDK retry takes the next one), as a
 * JSON body or, when the request asks to stream, as server-sent events in the API's own
 * event format. It records every request it received.
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
  apiError(429, 'rate_limit_error', 'Number of request tokens has exceeded your per-minute rate limit', { 'retry-after': retryAfterSeconds });
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

export class FakeAnthropic {
  readonly requests: RecordedRequest[] = [];
  private readonly queue: FakeReply[] = [];
  private responder: ((request: RecordedRequest) => FakeReply) | undefined;
  private limit: ConcurrencyLimit | undefined;
  private latencyMs = 0;
  private open = 0;
  /** The most requests open at once (the 429s included). */
  peakOpen = 0;
  /** Requests answered 429 by the concurrency limit. */
  rateLimited = 0;

  private readonly server: Server = createServer((req, res) => void this.handle(req, res));

  private constructor() {}

  static async start(): Promise<FakeAnthropic> {
    const fake = new FakeAnthropic();
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

  /** Forgets requests and unserved replies, between tests. */
  reset(): void {
    this.requests.length = 0;
    this.queue.length = 0;
  }

  async close(): Promise<void> {
    // Stalled replies hold their sockets open; close would wait for them forever.
    this.server.closeAllConnections();
    await new Promise<void>((resolve, reject) => this.server.close((err) => (err ? reject(err) : resolve())));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req);
    const body = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
    const record: RecordedRequest = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body, closedEarly: false, streamedChars: 0 };
    this.requests.push(record);
    this.open++;
    this.peakOpen = Math.max(this.peakOpen, this.open);
    res.on('close', () => {
      this.open--;
      record.closedEarly = !res.writableFinished;
    });
    if (this.limit && this.open > this.limit.max) {
      this.rateLimited++;
      sendError(res, 429, 'rate_limit_error', `fake Anthropic: more than ${this.limit.max} concurrent requests`, { 'retry-after': this.limit.retryAfterSeconds });
      return;
    }
    if (this.latencyMs) await new Promise((r) => setTimeout(r, this.latencyMs));
    const next = this.queue.shift() ?? this.responder?.(record);
    if (!next) {
      // 400 is not retried, so an unscripted call fails at once with a message that says why.
      sendError(res, 400, 'invalid_request_error', 'fake Anthropic: no scripted reply left for this request', {});
      return;
    }
    const streaming = body['stream'] === true;
    const model = typeof body['model'] === 'string' ? body['model'] : 'claude-fake';
    switch (next.kind) {
      case 'error':
        sendError(res, next.status, next.type, next.message, next.headers);
        return;
      case 'drop':
        if (next.midStream && streaming) {
          startStream(res, model, next.text);
          // Let the bytes already written reach the client before the reset.
          setTimeout(() => res.socket?.destroy(), 20);
        } else {
          req.socket.destroy();
        }
        return;
      case 'stall':
        if (streaming) startStream(res, model, next.text);
        return;
      case 'endEarly':
        startStream(res, model, next.text);
        res.end();
        return;
      case 'streamError':
        startStream(res, model, '');
        sendEvent(res, 'error', { type: 'error', error: { type: next.type, message: next.message } });
        res.end();
        return;
      case 'message':
        if (streaming) sendStream(res, model, next);
        else sendJson(res, 200, messageJson(model, next));
        return;
      case 'paced':
        sendPaced(res, model, next, record);
        return;
    }
  }
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

function messageJson(model: string, message: FakeMessage) {
  return {
    id: nextId('msg'),
    type: 'message',
    role: 'assistant',
    model,
    content: message.content.map(withoutRawJson),
    stop_reason: message.stopReason,
    stop_sequence: null,
    usage: message.usage,
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

function sendStream(res: ServerResponse, model: string, message: FakeMessage): void {
  startStream(res, model, '', message.usage);
  sendEvent(res, 'ping', { type: 'ping' });
  message.content.forEach((block, index) => {
    const delta = (d: Record<string, unknown>) => sendEvent(res, 'content_block_delta', { type: 'content_block_delta', index, delta: d });
    switch (block.type) {
      case 'text':
        sendEvent(res, 'content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
        for (const piece of chunks(block.text, message.chunkSize)) delta({ type: 'text_delta', text: piece });
        break;
      case 'thinking':
        sendEvent(res, 'content_block_start', { type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '', signature: '' } });
        for (const piece of chunks(block.thinking, message.chunkSize)) delta({ type: 'thinking_delta', thinking: piece });
        delta({ type: 'signature_delta', signature: block.signature });
        break;
      case 'tool_use':
        sendEvent(res, 'content_block_start', { type: 'content_block_start', index, content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} } });
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
    usage: { output_tokens: message.usage.output_tokens },
  });
  sendEvent(res, 'message_stop', { type: 'message_stop' });
  res.end();
}

function sendPaced(res: ServerResponse, model: string, reply: Extract<FakeReply, { kind: 'paced' }>, record: RecordedRequest): void {
  startStream(res, model, '');
  sendEvent(res, 'content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
  const timer = setInterval(() => {
    if (res.destroyed) return void clearInterval(timer);
    const piece = reply.text.slice(record.streamedChars, record.streamedChars + reply.chunkSize);
    record.streamedChars += piece.length;
    sendEvent(res, 'content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: piece } });
    if (record.streamedChars < reply.text.length) return;
    clearInterval(timer);
    sendEvent(res, 'content_block_stop', { type: 'content_block_stop', index: 0 });
    sendEvent(res, 'message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: Math.ceil(reply.text.length / 4) } });
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
