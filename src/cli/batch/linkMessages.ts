import { z } from 'zod';
import { TicketRunnerError } from '../../core/errors';

/**
 * What a batch and each of its ticket's `run` processes say over the IPC channel the batch
 * opens for it. Both sides parse each message with zod as it arrives (`readLinkMessage`): a
 * message that does not fit is an error that names its sender, never dropped.
 */

/** Child to batch. */
export const ChildMessage = z.discriminatedUnion('type', [
  /** Before each model call: the call's API key (a fingerprint, never the key) and the most the call can cost. */
  z
    .object({ type: z.literal('call/acquire'), id: z.number().int(), key: z.string(), maxCostUsd: z.number().nonnegative().nullable() })
    .strict(),
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

/** What a slot's process hears on its channel: the answers to its calls and its next ticket. */
export const SlotInbox = z.discriminatedUnion('type', [...ParentMessage.options, SlotOrder]);
export type SlotInbox = z.infer<typeof SlotInbox>;

/** A message on a batch link that fits none of its shapes: one side has a bug, or is not this version. */
export class LinkMessageError extends TicketRunnerError {
  override readonly name = 'LinkMessageError';
}

/** What the message claimed to be, for the error: its type when it names one. */
function describeRaw(raw: unknown): string {
  const type = typeof raw === 'object' && raw !== null ? (raw as { type?: unknown }).type : undefined;
  if (typeof type === 'string') return `a "${type}" message`;
  return raw === null ? 'null' : Array.isArray(raw) ? 'an array' : `a ${typeof raw}`;
}

/**
 * A message as it arrives on the link, parsed: what does not fit throws a `LinkMessageError`
 * naming `from` (who sent it: "the batch", "the process of slot 2 (pid 1234)") and what is wrong.
 */
export function readLinkMessage<S extends z.ZodType>(schema: S, raw: unknown, from: string): z.infer<S> {
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.slice(0, 3).map((i) => `${i.path.join('.') || 'the message'}: ${i.message}`);
  throw new LinkMessageError(`${from} sent ${describeRaw(raw)} that does not fit the batch link: ${issues.join('; ')}`);
}

/**
 * Set by the batch in its slots: a slot is one process that runs the batch's tickets one after
 * another, each in its own tree, so the runner's modules load (and its TypeScript warms up) once
 * per slot instead of once per ticket.
 */
export const BATCH_SLOT_VAR = 'TICKET_RUNNER_BATCH_SLOT';

/** Set in a ticket's process by the batch that started it: the IPC channel is the batch's link. */
export const BATCH_LINK_VAR = 'TICKET_RUNNER_BATCH_LINK';
