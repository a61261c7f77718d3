import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from '@anthropic-ai/sdk';
import { CancelledError, ModelTransportError, TicketRunnerError, UserInputError, errorMessage } from '../../../core/errors';

/** What the provider knew about a failed call when it failed. */
export interface FailedCall {
  retries: number;
  timeoutMs: number;
  /** Our per-call time limit fired. */
  timedOut: boolean;
  /** The caller's AbortSignal fired. */
  cancelled: boolean;
  apiKey: string;
}

const STATUS_WORDS: Record<number, string> = {
  408: 'timed out',
  409: 'reported a conflict',
  429: 'rate limit hit',
  500: 'internal server error',
  502: 'bad gateway',
  503: 'unavailable',
  504: 'gateway timeout',
  529: 'overloaded',
};

/**
 * Classifies a failure where it is caught: the caller's cancel, a key problem the user must
 * fix, or a transport failure after the SDK's retries. Messages are built here from status
 * and type rather than passed through, and every one is scrubbed of the key.
 */
export function toCallError(err: unknown, call: FailedCall): TicketRunnerError {
  const retries = `${call.retries} ${call.retries === 1 ? 'retry' : 'retries'}`;
  const after = `after ${retries}`;
  const transport = (message: string, status?: number) => new ModelTransportError(redact(message, call.apiKey), call.retries, status);

  if (call.cancelled) return new CancelledError('Anthropic API call cancelled');
  if (call.timedOut) return transport(`Anthropic API call timed out after ${call.timeoutMs} ms (${retries})`);
  if (err instanceof TicketRunnerError) return err;
  if (err instanceof APIUserAbortError) return new CancelledError('Anthropic API call cancelled');
  if (err instanceof APIConnectionTimeoutError) return transport(`Anthropic API timed out ${after}`);
  if (err instanceof APIConnectionError) {
    return transport(`could not reach the Anthropic API (${reasons(err).at(-1)}) ${after}`);
  }
  if (err instanceof APIError) {
    const detail = err.apiMessage ? `: ${err.apiMessage}` : '';
    // `instanceof` gives the SDK's generic APIError<any>: the status is read as what it is, a number or nothing.
    const status: unknown = err.status;
    if (status === 401) {
      return new UserInputError('the Anthropic API rejected the API key (401): check ANTHROPIC_API_KEY or the key stored in Ticket Runner');
    }
    if (status === 403) {
      return new UserInputError(redact(`the Anthropic API key may not use this model or endpoint (403)${detail}`, call.apiKey));
    }
    if (typeof status !== 'number') {
      // An `event: error` inside a stream has no HTTP status, only the error type.
      return transport(`Anthropic API stream failed mid-answer (${err.type ?? 'unknown error'})${detail}`);
    }
    const words = STATUS_WORDS[status] ?? (status >= 500 ? 'server error' : undefined);
    return words
      ? transport(`Anthropic API ${words} (${status}) ${after}${detail}`, status)
      : transport(`Anthropic API refused the request (${status}${err.type ? ` ${err.type}` : ''})${detail}`, status);
  }
  // Typically undici's "terminated" when the connection drops mid-stream: not retried by the SDK.
  return transport(`Anthropic API call failed: ${err instanceof Error ? reasons(err).join(': ') : errorMessage(err)}`);
}

/** undici says "fetch failed" or "terminated" and keeps the reason (reset, refused, closed) in the cause. */
function reasons(err: Error): string[] {
  const chain = [err.message];
  for (let cause = err.cause; cause instanceof Error; cause = cause.cause) chain.push(cause.message);
  return chain;
}

const KEY_SHAPE = /sk-ant-[A-Za-z0-9_-]+/g;

export function redact(message: string, apiKey: string): string {
  const withoutKey = apiKey.length > 0 ? message.split(apiKey).join('[redacted]') : message;
  return withoutKey.replace(KEY_SHAPE, '[redacted]');
}
