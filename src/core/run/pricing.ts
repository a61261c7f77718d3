import type { ModelUsage } from '../ports/model';

/** US dollars per million tokens, by kind of token. */
export interface ModelPrice {
  input: number;
  output: number;
  cacheRead: number;
  /** Writing the prompt cache (5-minute TTL). */
  cacheWrite: number;
}

/** Model id (without its date suffix) to price. */
export type PriceTable = Readonly<Record<string, ModelPrice>>;

/** Cache reads cost a tenth of input and 5-minute cache writes a quarter more, for every model below. */
const anthropic = (input: number, output: number): ModelPrice => ({
  input,
  output,
  cacheRead: input / 10,
  cacheWrite: input * 1.25,
});

/**
 * The one price table: list prices from Anthropic's pricing page, standard tier. A model
 * missing here is refused when its provider is built, so a dollar budget is never
 * silently enforced against a cost of zero; add the model here or pass a table.
 */
export const DEFAULT_PRICES: PriceTable = {
  'claude-opus-4-6': anthropic(5, 25),
  'claude-opus-4-5': anthropic(5, 25),
  'claude-opus-4-1': anthropic(15, 75),
  'claude-opus-4': anthropic(15, 75),
  'claude-sonnet-4-6': anthropic(3, 15),
  'claude-sonnet-4-5': anthropic(3, 15),
  'claude-sonnet-4': anthropic(3, 15),
  'claude-3-7-sonnet': anthropic(3, 15),
  'claude-haiku-4-5': anthropic(1, 5),
  'claude-3-5-haiku': anthropic(0.8, 4),
};

/** Dated snapshots (`claude-sonnet-4-5-20250929`) cost what their alias costs. */
const DATE_SUFFIX = /-\d{8}$/;

export function priceFor(model: string, table: PriceTable = DEFAULT_PRICES): ModelPrice | undefined {
  return table[model] ?? table[model.replace(DATE_SUFFIX, '')];
}

export function costOf(usage: ModelUsage, price: ModelPrice): number {
  const dollars =
    usage.inputTokens * price.input +
    usage.outputTokens * price.output +
    usage.cacheReadTokens * price.cacheRead +
    usage.cacheWriteTokens * price.cacheWrite;
  return dollars / 1_000_000;
}
