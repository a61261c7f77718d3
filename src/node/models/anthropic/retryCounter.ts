import type { ClientOptions } from '@anthropic-ai/sdk';

export type Fetch = NonNullable<ClientOptions['fetch']>;

export interface CountingFetch {
  fetch: Fetch;
  /** HTTP attempts past the first: the SDK's retries of this one call. */
  retries(): number;
}

/**
 * The SDK retries inside one `create` call and does not report how often. Every attempt,
 * retries included, goes through the client's `fetch`, so a fetch made for one call counts
 * them exactly, whatever the SDK's logging or the error in the end.
 */
export function countingFetch(base: Fetch): CountingFetch {
  let attempts = 0;
  return {
    fetch: (input, init) => {
      attempts += 1;
      return base(input, init);
    },
    retries: () => Math.max(0, attempts - 1),
  };
}
