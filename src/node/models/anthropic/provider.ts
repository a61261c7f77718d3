import Anthropic from '@anthropic-ai/sdk';
import type { MessageCreateParamsBase } from '@anthropic-ai/sdk/resources/messages';
import { CancelledError, UserInputError } from '../../../core/errors';
import type { ModelPort, ModelRequest, ModelResponse } from '../../../core/ports/model';
import { callTheToolInstruction } from '../../../core/recovery/proseSuppression';
import { THINKING_BUDGET_TOKENS } from '../../../core/recovery/policy';
import { costOf, DEFAULT_PRICES, type ModelPrice, priceFor, type PriceTable } from '../../../core/run/pricing';
import type { ModelInfo } from '../../../core/schema/events';
import { type AnswerDraft, draftFromMessage, toAnswerParts } from './answerDraft';
import { toCallError } from './callErrors';
import { countingFetch, type Fetch } from './retryCounter';
import { StreamAccumulator } from './streamAccumulator';
import { type RequestSettings, toAnthropicRequest } from './toAnthropicRequest';

export const DEFAULT_ANTHROPIC_MODEL = 'claude-sonnet-4-6';
export const ANTHROPIC_API_URL = 'https://api.anthropic.com';

export interface AnthropicProviderOptions {
  apiKey: string;
  model?: string;
  /** The API's address: a proxy, ANTHROPIC_BASE_URL, or a local fake in tests. */
  baseURL?: string;
  /** The SDK's retries on 408/409/429/5xx/529 and connection errors. Default 2. */
  maxRetries?: number;
  /** Per-call time limit when the request names none, retries included. Default 5 minutes. */
  timeoutMs?: number;
  /** The answer's token allowance when the request names none. Default 8192. */
  maxTokens?: number;
  /** Extended thinking budget, added on top of the answer's allowance. Default 8000. */
  thinkingBudgetTokens?: number;
  /** Prices per model; the default is the one table in src/core/run/pricing.ts. */
  prices?: PriceTable;
  /** Mark the system prompt cacheable: attempts of one ticket resend it. Default true. */
  cacheSystemPrompt?: boolean;
  /** The transport under the SDK (a proxy agent, for instance). Default: global fetch. */
  fetch?: Fetch;
}

/** Tokens the API adds around a request (tool-use instructions, message framing): generously more than it does. */
const FRAMING_TOKENS = 4096;

const DEFAULTS = { maxRetries: 2, timeoutMs: 5 * 60_000, maxTokens: 8192, thinkingBudgetTokens: THINKING_BUDGET_TOKENS } as const;

/** Claude over the Messages API, through the official SDK and its retries. */
export class AnthropicProvider implements ModelPort {
  readonly info: ModelInfo;
  // Private fields (#) stay out of inspect() and JSON: the client and the key must not reach a log.
  readonly #client: Anthropic;
  readonly #apiKey: string;
  private readonly price: ModelPrice;
  private readonly settings: RequestSettings;
  private readonly timeoutMs: number;
  private readonly fetch: Fetch;

  constructor(options: AnthropicProviderOptions) {
    const model = options.model ?? DEFAULT_ANTHROPIC_MODEL;
    if (!options.apiKey.trim())
      throw new UserInputError('the Anthropic API key is empty: set ANTHROPIC_API_KEY or store a key in Ticket Runner');
    const price = priceFor(model, options.prices ?? DEFAULT_PRICES);
    if (!price) {
      throw new UserInputError(
        `no price is known for the Anthropic model "${model}": add it to the price table (src/core/run/pricing.ts) or pass one, so that cost budgets hold`,
      );
    }
    this.info = { provider: 'anthropic', model, scripted: false };
    this.#apiKey = options.apiKey;
    this.price = price;
    this.timeoutMs = options.timeoutMs ?? DEFAULTS.timeoutMs;
    this.fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.settings = {
      model,
      defaultMaxTokens: options.maxTokens ?? DEFAULTS.maxTokens,
      thinkingBudgetTokens: options.thinkingBudgetTokens ?? DEFAULTS.thinkingBudgetTokens,
      cacheSystemPrompt: options.cacheSystemPrompt ?? true,
    };
    this.#client = new Anthropic({
      apiKey: options.apiKey,
      // Explicit, so that neither ANTHROPIC_AUTH_TOKEN nor ANTHROPIC_BASE_URL leaks in from this process's environment.
      authToken: null,
      baseURL: options.baseURL ?? ANTHROPIC_API_URL,
      maxRetries: options.maxRetries ?? DEFAULTS.maxRetries,
      timeout: this.timeoutMs,
      fetch: this.fetch,
    });
  }

  /**
   * The most this call can cost, before it is made: every byte of the request as a token
   * written to the cache (a token is at least one byte, and a cache write is the dearest
   * input), a margin for the API's own framing, and the whole answer allowance. A batch's
   * dollar cap reserves it while the call is in flight. SDK retries of a refused request
   * (429, 529) are not billed; a stream that breaks mid-answer may be, and is not counted here.
   */
  maxCostUsd(request: ModelRequest): number {
    const body = toAnthropicRequest(request, this.settings);
    const inputBound = Buffer.byteLength(JSON.stringify(body), 'utf8') + FRAMING_TOKENS;
    return costOf({ inputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: inputBound, outputTokens: body.max_tokens }, this.price);
  }

  async complete(request: ModelRequest, signal: AbortSignal): Promise<ModelResponse> {
    if (signal.aborted) throw new CancelledError('Anthropic API call cancelled before it started');
    const started = Date.now();
    const timeoutMs = request.timeoutMs ?? this.timeoutMs;
    const counter = countingFetch(this.fetch);
    const client = this.#client.withOptions({ fetch: counter.fetch });
    // One controller for the whole call, retries and stream included: the SDK's own timeout stops at the headers.
    const call = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      call.abort();
    }, timeoutMs);
    const relayCancel = () => call.abort();
    signal.addEventListener('abort', relayCancel, { once: true });
    let callbackFailure: { error: unknown } | undefined;
    // A watcher's callback that throws fails the call with its error, not the stream's.
    const guarded = <A extends unknown[]>(callback: ((...args: A) => void) | undefined) =>
      callback &&
      ((...args: A) => {
        try {
          callback(...args);
        } catch (error) {
          callbackFailure = { error };
          call.abort();
        }
      });
    const onText = guarded(request.onText);
    const onActivity = guarded(request.onActivity);

    try {
      const body = toAnthropicRequest(request, this.settings);
      // The receipt of toAnthropicRequest's one change to the prompt: thinking cannot force the tool.
      if (request.structured && request.thinking)
        request.onAdapted?.({ kind: 'proseSuppressed', instruction: callTheToolInstruction(request.structured.name) });
      const options = { signal: call.signal, timeout: timeoutMs };
      // Thinking calls run long, and a watched call needs its text as it comes: both stream.
      const draft =
        onText || onActivity || request.thinking
          ? await streamed(client, body, options, onText, onActivity)
          : draftFromMessage(await client.messages.create({ ...body, stream: false }, options));
      // The SDK ends an aborted stream quietly, as if it were complete.
      if (call.signal.aborted) throw new CancelledError('Anthropic API call aborted');
      const parts = toAnswerParts(draft, request.structured?.name);
      return {
        ...parts,
        costUsd: costOf(parts.usage, this.price),
        latencyMs: Date.now() - started,
        retries: counter.retries(),
      };
    } catch (err) {
      if (callbackFailure) throw callbackFailure.error;
      throw toCallError(err, {
        retries: counter.retries(),
        timeoutMs,
        timedOut,
        cancelled: signal.aborted,
        apiKey: this.#apiKey,
      });
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', relayCancel);
    }
  }
}

async function streamed(
  client: Anthropic,
  body: MessageCreateParamsBase,
  options: { signal: AbortSignal; timeout: number },
  onText: ((delta: string, soFar: string) => void) | undefined,
  onActivity: (() => void) | undefined,
): Promise<AnswerDraft> {
  const stream = await client.messages.create({ ...body, stream: true }, options);
  const accumulator = new StreamAccumulator(onText, onActivity);
  for await (const event of stream) accumulator.add(event);
  if (!accumulator.finished && !options.signal.aborted) {
    throw new Error('the stream ended before message_stop (connection closed mid-answer)');
  }
  return accumulator.draft();
}
