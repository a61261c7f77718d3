import { z } from 'zod';
import { RunStateSchema, type RunState } from '../core/run/runState';
import { TimelineEntry } from '../core/run/views/timeline';
import { RunStage } from '../core/run/views/stage';

/** The phrase every view uses for the sandbox's state; the webview reaches the core only through here. */
export { describeStop, modelLabel, outcomeLine, sandboxLabel } from '../core/run/views/report';
export {
  deciderWords,
  gateWords,
  guardWords,
  outcomeWords,
  proposalWords,
  QUICK_FIXES,
  RECORDED_SAMPLE,
  routeWords,
  rungWords,
  runStatusWords,
  sourceWords,
  whatIsWrong,
  whyAttemptFailed,
} from '../core/run/views/words';
export { checkLines, gateDetailWords, judgedByText, verdictLines, verdictText, type VerdictLine } from '../core/run/views/verdict';
export { localClock } from '../core/run/views/time';
export { decisionWords } from '../core/run/views/decisionWords';

/**
 * The webview message protocol: zod discriminated unions on `type` (`area/verb`), parsed
 * with safeParse on both sides; an invalid message is refused with a clear error. The
 * webview posts `ready` before the host sends anything. Requests carry an id, and the
 * host answers each with `request/done` for the same id.
 *
 * Only zod schemas live here (and in the core schemas they compose): the webview bundle
 * imports this file and nothing else of src/.
 */

export { RunStateSchema };
export type RunStateView = RunState;

export { TimelineEntry, RunStage };

const requestId = z.string().min(1).max(100);

export const HostMessage = z.discriminatedUnion('type', [
  /** Host, after `ready` and after every change of the run: the state reduced from its log. */
  z
    .object({
      type: z.literal('run/state'),
      state: RunStateSchema,
      timeline: z.array(TimelineEntry),
      /** File contents of the attempts, by blob hash, for the diffs between attempts. */
      blobs: z.record(z.string(), z.string()),
      /** Where each quote of each diagnosis was found, so a click opens the file at the line. */
      quotes: z.array(
        z.object({ attempt: z.number().int(), index: z.number().int(), path: z.string(), line: z.number().int().positive() }).strict(),
      ),
      /** live: follows the log; replay: the state up to `position.seq`, stepped by the operator. */
      mode: z.enum(['live', 'replay']),
      position: z.object({ seq: z.number().int(), total: z.number().int() }),
      /** false in an untrusted workspace: decisions are shown but cannot be made. */
      canDecide: z.boolean(),
      /** live: what the run is doing now (null once it finished); absent in a replay. */
      stage: RunStage.nullable().optional(),
      /** true while this window drives the run: the view offers Cancel. */
      canCancel: z.boolean().optional(),
      /** Per correction request that changes the test plan: each rendered test file now and after Accept renders it again. */
      proposalTests: z
        .array(
          z
            .object({
              requestId: z.string(),
              files: z.array(z.object({ path: z.string(), before: z.string(), after: z.string() }).strict()),
            })
            .strict(),
        )
        .optional(),
    })
    .strict(),
  /** Host, answering a request by its id. */
  z.object({ type: z.literal('request/done'), id: requestId, ok: z.boolean(), error: z.string().optional() }).strict(),
  /** Host, when something the webview shows went wrong (a log that cannot load). */
  z.object({ type: z.literal('run/error'), message: z.string() }).strict(),
]);
export type HostMessage = z.infer<typeof HostMessage>;

export const WebviewMessage = z.discriminatedUnion('type', [
  /** Webview, once its script runs: the host sends nothing before it. */
  z.object({ type: z.literal('ready') }).strict(),
  /** Webview, the operator accepted the pending correction request. */
  z.object({ type: z.literal('correction/accept'), id: requestId, runId: z.string().min(1), requestId: z.string().min(1) }).strict(),
  /** Webview, the operator rejected it; the reason is required and goes into the log. */
  z
    .object({
      type: z.literal('correction/reject'),
      id: requestId,
      runId: z.string().min(1),
      requestId: z.string().min(1),
      reason: z.string().trim().min(1),
    })
    .strict(),
  /** Webview, the operator cancelled the live run this view shows; the host aborts it as the notification's Cancel does. */
  z.object({ type: z.literal('run/cancel'), id: requestId, runId: z.string().min(1) }).strict(),
  /** Webview, "Open in diff editor" on a proposal: the ticket's two sides, or a rendered test's when `test` names it. */
  z
    .object({
      type: z.literal('proposal/diff'),
      id: requestId,
      runId: z.string().min(1),
      requestId: z.string().min(1),
      test: z.string().min(1).optional(),
    })
    .strict(),
  /** Webview, a quote or diagnostic was clicked: open the file at the line. */
  z.object({ type: z.literal('file/open'), path: z.string().min(1), line: z.number().int().positive().optional() }).strict(),
  /** Webview, a model call's control in the timeline: open its whole prompt and raw answer beside, read-only. */
  z.object({ type: z.literal('model/show'), call: z.number().int().nonnegative() }).strict(),
  /** Webview, replay: show the state up to this event. */
  z.object({ type: z.literal('run/seek'), seq: z.number().int().nonnegative() }).strict(),
  /** Webview, it refused an inbound message: the host logs it. */
  z.object({ type: z.literal('protocol/error'), message: z.string() }).strict(),
]);
export type WebviewMessage = z.infer<typeof WebviewMessage>;

export type ParseResult<T> = { ok: true; message: T } | { ok: false; error: string };

function describe(error: z.ZodError, raw: unknown): string {
  const type = typeof raw === 'object' && raw !== null && 'type' in raw ? String(raw.type) : '(no type)';
  const issues = error.issues
    .slice(0, 3)
    .map((i) => `${i.path.join('.') || '$'}: ${i.message}`)
    .join('; ');
  return `invalid message "${type}": ${issues}`;
}

/** Validates a message the webview received; the error says which message and what is wrong. */
export function parseHostMessage(raw: unknown): ParseResult<HostMessage> {
  const r = HostMessage.safeParse(raw);
  return r.success ? { ok: true, message: r.data } : { ok: false, error: describe(r.error, raw) };
}

/** Validates a message the host received. */
export function parseWebviewMessage(raw: unknown): ParseResult<WebviewMessage> {
  const r = WebviewMessage.safeParse(raw);
  return r.success ? { ok: true, message: r.data } : { ok: false, error: describe(r.error, raw) };
}

/** Handlers over every message type: `satisfies` makes a message without a handler a compile error. */
export type HandlerMap<M extends { type: string }> = { [T in M['type']]: (message: Extract<M, { type: T }>) => void | Promise<void> };
