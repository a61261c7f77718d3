import { z } from 'zod';

/**
 * The Run Statistics panel's messages: the host sends the figures already in words (the
 * core's `statsSections` and `statsTable`, the same the CLI's `stats` prints); the webview
 * posts `ready` first and `stats/refresh` when asked to count again. Parsed with safeParse
 * on both sides, as the run webview's protocol is.
 */

const text = z.string().max(2000);

export const StatsHostMessage = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('stats/figures'),
    runs: z.number().int().nonnegative(),
    /** Shown when there is no run: what to do first. */
    empty: text,
    sections: z.array(z.object({ title: text, lines: z.array(text).max(200) })).max(20),
    /** A header row, then a row per ticket. */
    table: z.array(z.array(text).max(20)).max(10_000),
  }),
]);
export type StatsHostMessage = z.infer<typeof StatsHostMessage>;

export const StatsWebviewMessage = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }),
  z.object({ type: z.literal('stats/refresh') }),
]);
export type StatsWebviewMessage = z.infer<typeof StatsWebviewMessage>;
