import { errorMessage, isAbort, ModelTransportError } from '../errors';
import type { ModelRequest, ModelResponse } from '../ports/model';
import { reduceRun } from '../run/reducer';
import { RunStop, type RunContext } from './context';

/** Stops the run when a per-run budget (calls, tokens, dollars, wall time) is spent. */
export function checkBudget(ctx: RunContext): void {
  const b = ctx.budget;
  const usage = reduceRun(ctx.log.runId, ctx.log.events).usage;
  const over = (budget: 'modelCalls' | 'tokens' | 'dollars' | 'wallMs', limit: number | undefined, used: number) => {
    if (limit !== undefined && used > limit) throw new RunStop({ kind: 'budgetExceeded', budget, limit, used }, 'failed');
  };
  over('modelCalls', b.modelCalls, usage.calls);
  over('tokens', b.tokens, usage.inputTokens + usage.outputTokens);
  over('dollars', b.dollars, usage.costUsd);
  over('wallMs', b.wallMs, Date.now() - ctx.startedAt);
}

/**
 * Every model call goes through here: it is recorded (tokens, cost, latency, retries),
 * a transport failure stops the run with its typed reason, and budgets are enforced.
 */
export async function callModel(ctx: RunContext, request: ModelRequest, signal: AbortSignal = ctx.signal): Promise<ModelResponse> {
  const { model } = ctx.deps;
  const started = Date.now();
  try {
    const response = await model.complete(request, signal);
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
    });
    checkBudget(ctx);
    return response;
  } catch (err) {
    if (err instanceof RunStop) throw err;
    await ctx.log.emit({
      type: 'model.called',
      role: request.role,
      attempt: request.attempt,
      model: model.info,
      ok: false,
      error: errorMessage(err),
      inputTokens: 0,
      outputTokens: 0,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      costUsd: 0,
      latencyMs: Date.now() - started,
      retries: err instanceof ModelTransportError ? err.retries : 0,
    });
    if (isAbort(err) && ctx.signal.aborted) throw new RunStop({ kind: 'cancelled' }, 'cancelled');
    if (err instanceof ModelTransportError) throw new RunStop({ kind: 'modelError', role: request.role, message: err.message }, 'error');
    throw err;
  }
}
