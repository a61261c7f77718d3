import { errorMessage, ModelTransportError } from '../../errors';
import type { ModelRequest, ModelResponse } from '../../ports/model';
import type { ModelAdaptation, ModelRole } from '../../schema/events';
import { type AnomalyScore, scoreAnswer } from '../../recovery/anomalies';
import { budgetStop, stopFromSignal } from '../../recovery/budgets';
import { reduceRun } from '../../run/reducer';
import type { PipelineDeps, RunContext } from './context';
import { RunStop } from '../../recovery/runStop';

/** A model answer with its anomaly score: the Coder's path reads it to decide on rung 1. */
export interface ScoredResponse extends ModelResponse {
  anomaly: AnomalyScore;
}

/**
 * What a model call needs of its caller: a log that records it, the budget and the signal. A
 * run's context is one; a draft, which has no run, makes one with a log kept in memory
 * (src/core/stages/authoring/draftTicket.ts), so its calls climb the same rungs.
 */
export type CallContext = Pick<RunContext, 'log' | 'budget' | 'signal' | 'startedAt' | 'recovery'> & {
  deps: Pick<PipelineDeps, 'model' | 'clock'>;
};

/**
 * Stops the run when a per-run budget (calls, tokens, dollars, wall time) is spent.
 * `beforeCall` refuses a call the call budget has no room for; `afterCall` sees what the
 * call cost.
 */
export function checkBudget(ctx: CallContext, phase: 'beforeCall' | 'afterCall' = 'afterCall'): void {
  const usage = reduceRun(ctx.log.runId, ctx.log.events).usage;
  const stop = budgetStop(ctx.budget, usage, ctx.deps.clock.now().getTime() - ctx.startedAt, phase);
  if (stop) throw stop;
}

/**
 * What the detectors read: the text, and the structured answer or tool inputs as fenced
 * JSON. A tool-use turn or a structured answer has little or no text, and is not
 * "near-empty" for it.
 */
function scoredText(response: ModelResponse): string {
  const json = (value: unknown) => '```json\n' + JSON.stringify(value) + '\n```';
  const parts = [response.text];
  if (response.structured !== undefined) parts.push(json(response.structured));
  for (const call of response.toolCalls) parts.push(json(call.input));
  return parts.filter((p) => p !== '').join('\n\n');
}

/**
 * The request as the model gets it, for the record: a surprising diagnosis can be audited
 * against exactly what the Debugger read. Callbacks are not data and are left out.
 */
export function promptRecord(request: ModelRequest): string {
  const { onText: _onText, onActivity: _onActivity, onAdapted: _onAdapted, ...data } = request;
  return JSON.stringify(data, null, 1);
}

/** The raw answer, before any parsing or validation, for the record. */
export function answerRecord(response: ModelResponse): string {
  const { text, structured, toolCalls, stopReason } = response;
  return JSON.stringify({ text, structured, toolCalls, stopReason }, null, 1);
}

/** A call a run makes: one of the run's roles, which its log records. */
export type RunRequest = ModelRequest & { role: ModelRole };

/** Scores an answer and records the signals when there are any (every answer is scored, so a rung can act on it). */
export async function recordAnomaly(
  ctx: CallContext,
  request: Pick<RunRequest, 'role' | 'attempt' | 'structured' | 'messages'>,
  text: string,
): Promise<AnomalyScore> {
  // A turn after tool results ends an edit conversation: its code went through the tools.
  const afterTools = request.messages.some((m) => m.role === 'tool');
  const anomaly = scoreAnswer(text, { expectCode: request.role === 'coder' && !request.structured && !afterTools, afterTools });
  if (anomaly.score > 0) {
    await ctx.log.emit({
      type: 'anomaly.detected',
      attempt: request.attempt,
      role: request.role,
      score: anomaly.score,
      urgent: anomaly.urgent,
      signals: anomaly.signals,
    });
  }
  return anomaly;
}

/**
 * Every model call goes through here: budgets are enforced before and after, the call is
 * recorded (tokens, cost, latency, retries), the answer is scored by the anomaly
 * detectors, and a transport failure stops the run with its typed reason. `signal` may be
 * a call's own (rung 1 stops a stream with it); the run's own abort is told apart by
 * `ctx.signal`, and its reason (cancel or wall-time budget) becomes the stop.
 */
/**
 * `onSent` is told when the request goes to the provider, after the prompt is kept: a watch on
 * the model's silence starts there, not while the log writes.
 */
export async function callModel(
  ctx: CallContext,
  request: RunRequest,
  signal: AbortSignal = ctx.signal,
  onSent?: () => void,
): Promise<ScoredResponse> {
  const { model } = ctx.deps;
  if (ctx.signal.aborted) throw stopFromSignal(ctx.signal);
  checkBudget(ctx, 'beforeCall');
  const prompt = await ctx.log.putRecord(promptRecord(request));
  const now = () => ctx.deps.clock.now().getTime();
  const started = now();
  const adaptations: ModelAdaptation[] = [];
  const adapted = () => (adaptations.length ? { adaptations: [...adaptations] } : {});
  let response: ModelResponse;
  try {
    onSent?.();
    response = await model.complete({ ...request, onAdapted: (a) => adaptations.push(a) }, signal);
  } catch (err) {
    if (err instanceof RunStop) throw err;
    // A call stopped by its caller records why, not the provider's generic "cancelled".
    const stoppedBy =
      signal !== ctx.signal && signal.aborted && !ctx.signal.aborted && signal.reason instanceof Error ? signal.reason : undefined;
    await ctx.log.emit({
      type: 'model.called',
      role: request.role,
      attempt: request.attempt,
      model: model.info,
      ok: false,
      error: stoppedBy ? `stopped: ${stoppedBy.message}` : errorMessage(err),
      inputTokens: 0,
      outputTokens: 0,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      costUsd: 0,
      latencyMs: now() - started,
      retries: err instanceof ModelTransportError ? err.retries : 0,
      prompt,
      ...adapted(),
    });
    if (ctx.signal.aborted) throw stopFromSignal(ctx.signal);
    if (err instanceof ModelTransportError) throw new RunStop({ kind: 'modelError', role: request.role, message: err.message }, 'error');
    throw err;
  }
  await ctx.log.emit({
    type: 'model.called',
    role: request.role,
    attempt: request.attempt,
    model: model.info,
    ok: true,
    inputTokens: response.usage.inputTokens,
    outputTokens: response.usage.outputTokens,
    cacheReadTokens: response.usage.cacheReadTokens,
    cacheWriteTokens: response.usage.cacheWriteTokens,
    costUsd: response.costUsd,
    latencyMs: response.latencyMs,
    retries: response.retries,
    prompt,
    answer: await ctx.log.putRecord(answerRecord(response)),
    ...adapted(),
    stopReason: response.stopReason,
  });
  const anomaly = await recordAnomaly(ctx, request, scoredText(response));
  checkBudget(ctx, 'afterCall');
  return { ...response, anomaly };
}
