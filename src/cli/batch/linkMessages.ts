import { z } from 'zod';

/**
 * What a batch and each of its ticket's `run` processes say over the IPC channel the batch
 * opens for it. Both sides parse with zod: a message that does not fit is dropped.
 */

/** Child to batch. */
export const ChildMessage = z.discriminatedUnion('type', [
  /** Before each model call: the call's API key (a fingerprint, never the key) and the most the call can cost. */
  z.object({ type: z.literal('call/acquire'), id: z.number().int(), key: z.string(), maxCostUsd: z.number().nonnegative().nullable() }).strict(),
  /** After each call granted, whatever its end: what it cost. */
  z.object({ type: z.literal('call/release'), permit: z.number().int(), costUsd: z.number().nonnegative() }).strict(),
  /** A slot is set up (its signal handlers too) and takes its first ticket. */
  z.object({ type: z.literal('slot/ready') }).strict(),
  /** A slot's ticket has ended, with the exit code `run` would have exited with. */
  z.object({ type: z.literal('ticket/done'), code: z.number().int() }).strict(),
]);
export type ChildMessage = z.infer<typeof ChildMessage>;

/** Batch to child: the answer to one `call/acquire`. */
export const ParentMessage = z.discriminatedUnion('type', [
  z.object({ type: z.literal('call/granted'), id: z.number().int(), permit: z.number().int() }).strict(),
  /** The batch's dollar cap is reached: the run stops with a budget stop instead of calling. */
  z.object({ type: z.literal('call/refused'), id: z.number().int(), limitUsd: z.number(), spentUsd: z.number() }).strict(),
]);
export type ParentMessage = z.infer<typeof ParentMessage>;

/** Batch to slot: run one ticket, as `ticket-runner <argv>` would, from `cwd`. */
export const SlotOrder = z.object({ type: z.literal('ticket/run'), argv: z.array(z.string()).min(1), cwd: z.string().min(1) }).strict();
export type SlotOrder = z.infer<typeof SlotOrder>;

/**
 * Set by the batch in its slots: a slot is one process that runs the batch's tickets one after
 * another, each in its own tree, so the runner's modules load (and its TypeScript warms up) once
 * per slot instead of once per ticket.
 */
export const BATCH_SLOT_VAR = 'TICKET_RUNNER_BATCH_SLOT';

/** Set in a ticket's process by the batch that started it: the IPC channel is the batch's link. */
export const BATCH_LINK_VAR = 'TICKET_RUNNER_BATCH_LINK';
