import { z } from 'zod';
import { AppliedFix, CodeDiagnostic, LintProblem, ParseProblem, TestRunResult } from '../core/schema/checks';
import { CorrectionRequest, MachineFact } from '../core/schema/correction';
import { Diagnosis } from '../core/schema/diagnosis';
import { Budget, FileRef, ModelInfo, ModelRole, Route, RunOutcome, StopReason } from '../core/schema/events';
import { Manifest } from '../core/schema/manifest';

/** The phrase every view uses for the sandbox's state; the webview reaches the core only through here. */
export { sandboxLabel } from '../core/run/report';

/**
 * The webview message protocol: zod discriminated unions on `type` (`area/verb`), parsed
 * with safeParse on both sides; an invalid message is refused with a clear error. The
 * webview posts `ready` before the host sends anything. Requests carry an id, and the
 * host answers each with `request/done` for the same id.
 *
 * Only zod schemas live here (and in the core schemas they compose): the webview bundle
 * imports this file and nothing else of src/.
 */

const Attempt = z.object({
  n: z.number().int(),
  brief: z.string().optional(),
  files: z.array(FileRef),
  written: z.array(z.object({ path: z.string(), before: z.string().nullable(), after: z.string() })),
  refused: z.array(z.object({ path: z.string(), reason: z.string(), detail: z.string() })),
  parse: z.object({ ok: z.boolean(), problems: z.array(ParseProblem) }).optional(),
  diagnostics: z.object({ ok: z.boolean(), checkedFiles: z.array(z.string()), diagnostics: z.array(CodeDiagnostic), preExisting: z.array(CodeDiagnostic).default([]), durationMs: z.number() }).optional(),
  autofix: z.object({ applied: z.array(AppliedFix), refused: z.array(AppliedFix) }).optional(),
  lint: z.object({ status: z.enum(['passed', 'failed', 'skipped', 'error']), problems: z.array(LintProblem), preExisting: z.array(LintProblem).default([]), detail: z.string().optional() }).optional(),
  tests: TestRunResult.optional(),
  projectTests: z.object({ files: z.array(z.string()), result: TestRunResult, newlyFailing: z.array(z.string()), preExisting: z.array(z.string()) }).optional(),
  diagnosis: Diagnosis.nullable().optional(),
  rejectedDiagnoses: z.array(z.object({ reason: z.string(), missingQuotes: z.array(z.string()) })),
  route: z.object({ claimed: z.string().nullable(), route: Route, verdict: z.string(), fact: MachineFact.optional(), detail: z.string() }).optional(),
  rungs: z.array(z.object({ rung: z.number(), reason: z.string() })),
  anomalies: z.array(z.object({ role: ModelRole, score: z.number(), urgent: z.boolean(), signals: z.array(z.object({ name: z.string(), weight: z.number(), detail: z.string() })) })),
  tampered: z.array(z.object({ path: z.string(), at: z.string() })).default([]),
  status: z.enum(['pending', 'passed', 'failed']),
});

/** RunState as src/core/run/reducer.ts reduces it; src/vscode/runPanel.ts checks at compile time that the two agree. */
export const RunStateSchema = z.object({
  runId: z.string(),
  ticketId: z.string(),
  ticketPath: z.string(),
  model: ModelInfo.optional(),
  budget: Budget.optional(),
  sandbox: z.object({ on: z.boolean(), detail: z.string() }).optional(),
  startedAt: z.string().optional(),
  updatedAt: z.string().optional(),
  status: z.union([z.literal('running'), RunOutcome]),
  finished: z.object({ outcome: RunOutcome, reason: StopReason, attempts: z.number() }).optional(),
  manifest: Manifest.optional(),
  manifestHash: z.string().optional(),
  testFiles: z.array(FileRef),
  framework: z.string().optional(),
  ops: z.array(z.object({ index: z.number(), op: z.unknown(), ok: z.boolean(), reason: z.string().optional(), suggestion: z.string().optional() })),
  attempts: z.array(Attempt),
  corrections: z.array(
    z.object({
      request: CorrectionRequest,
      status: z.enum(['pending', 'accepted', 'rejected']),
      preview: z.object({ path: z.string(), diff: z.string().optional(), problem: z.string().optional() }).optional(),
      reason: z.string().optional(),
      by: z.string().optional(),
    }),
  ),
  gates: z.array(z.object({ gate: z.string(), status: z.string(), detail: z.string(), repaired: z.boolean() })),
  repairs: z.array(z.object({ gate: z.string(), ok: z.boolean(), detail: z.string(), files: z.array(FileRef) })),
  modelCalls: z.array(z.object({ role: ModelRole, attempt: z.number(), model: ModelInfo, ok: z.boolean(), error: z.string().optional(), inputTokens: z.number(), outputTokens: z.number(), costUsd: z.number(), latencyMs: z.number(), retries: z.number() })),
  usage: z.object({ calls: z.number(), inputTokens: z.number(), outputTokens: z.number(), costUsd: z.number(), retries: z.number() }),
  workspace: z.string(),
  resumes: z.array(z.object({ from: z.string(), reason: z.string() })),
  rolledBack: z.boolean(),
  tampered: z.array(z.object({ path: z.string(), at: z.string() })).default([]),
  baseline: z.object({ checkedFiles: z.array(z.string()), diagnostics: z.array(CodeDiagnostic), lint: z.array(LintProblem), project: z.array(CodeDiagnostic).optional() }).optional(),
  notJudged: z.array(z.object({ gate: z.string(), detail: z.string() })).default([]),
  eventCount: z.number(),
});
export type RunStateView = z.infer<typeof RunStateSchema>;

/** One line of the timeline: a fact of the log, typed; `label` is for display only. */
export const TimelineEntry = z.object({
  seq: z.number().int(),
  ts: z.string(),
  type: z.string(),
  attempt: z.number().int().optional(),
  status: z.enum(['ok', 'failed', 'info', 'warning', 'needsOperator']),
  label: z.string(),
});
export type TimelineEntry = z.infer<typeof TimelineEntry>;

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
      quotes: z.array(z.object({ attempt: z.number().int(), index: z.number().int(), path: z.string(), line: z.number().int().positive() }).strict()),
      /** live: follows the log; replay: the state up to `position.seq`, stepped by the operator. */
      mode: z.enum(['live', 'replay']),
      position: z.object({ seq: z.number().int(), total: z.number().int() }),
      /** false in an untrusted workspace: decisions are shown but cannot be made. */
      canDecide: z.boolean(),
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
  z.object({ type: z.literal('correction/reject'), id: requestId, runId: z.string().min(1), requestId: z.string().min(1), reason: z.string().trim().min(1) }).strict(),
  /** Webview, a quote or diagnostic was clicked: open the file at the line. */
  z.object({ type: z.literal('file/open'), path: z.string().min(1), line: z.number().int().positive().optional() }).strict(),
  /** Webview, replay: show the state up to this event. */
  z.object({ type: z.literal('run/seek'), seq: z.number().int().nonnegative() }).strict(),
  /** Webview, it refused an inbound message: the host logs it. */
  z.object({ type: z.literal('protocol/error'), message: z.string() }).strict(),
]);
export type WebviewMessage = z.infer<typeof WebviewMessage>;

export type ParseResult<T> = { ok: true; message: T } | { ok: false; error: string };

function describe(error: z.ZodError, raw: unknown): string {
  const type = typeof raw === 'object' && raw !== null && 'type' in raw ? String((raw as { type: unknown }).type) : '(no type)';
  const issues = error.issues.slice(0, 3).map((i) => `${i.path.join('.') || '$'}: ${i.message}`).join('; ');
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
