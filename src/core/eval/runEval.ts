import { errorMessage } from '../errors';
import type { ModelPort, ModelResponse } from '../ports/model';
import type { MachineFact } from '../schema/correction';
import type { FailureKind } from '../schema/diagnosis';
import type { Route } from '../schema/events';
import type { RoutingCase } from '../schema/routingCase';
import { debuggerRequest, diagnose } from '../stages/debugger/debuggerStage';
import type { RouteDecision, RouterInputs } from '../stages/common/routing';
import { route } from '../stages/router/router';

/** What the benchmark found for one case: the Debugger's claim, where the router sent it, and what it cost. */
export interface CaseResult {
  id: string;
  gold: FailureKind;
  claimed: FailureKind | null;
  routed: Route;
  verdict: RouteDecision['guard']['verdict'];
  fact?: MachineFact['kind'];
  /** Diagnoses the evidence check rejected before the one used (or before giving up). */
  rejected: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  /** A call that failed for a reason other than its answer (transport, script): the case counts as unanswered. */
  error?: string;
}

export interface EvalOptions {
  /** The model that answers one case: the scripted one replays the case's recorded answers. */
  modelFor: (c: RoutingCase) => ModelPort;
  /** The router to measure: the product's, unless a test swaps a guard out to show the benchmark notices. */
  router?: (i: RouterInputs) => RouteDecision;
  signal: AbortSignal;
  onCase?: (r: CaseResult, index: number) => void;
}

/**
 * Runs the real Debugger stage (prompt, schema, evidence check, one retry) and the real router
 * over each case, in order: the same calls a run makes after a failed attempt, with nothing
 * of the run around them.
 */
export async function evalCases(cases: readonly RoutingCase[], o: EvalOptions): Promise<CaseResult[]> {
  const router = o.router ?? route;
  const results: CaseResult[] = [];
  for (const [index, c] of cases.entries()) {
    const model = o.modelFor(c);
    const spent: ModelResponse[] = [];
    let diagnosed: Awaited<ReturnType<typeof diagnose>> = { diagnosis: null, rejected: [] };
    let error: string | undefined;
    try {
      diagnosed = await diagnose(async (prompt, note) => {
        const response = await model.complete(debuggerRequest(1, prompt, note), o.signal);
        spent.push(response);
        return response;
      }, c.inputs);
    } catch (err) {
      if (o.signal.aborted) throw err;
      error = errorMessage(err);
    }
    const decision = router({ ...c.facts, diagnosis: diagnosed.diagnosis });
    const result: CaseResult = {
      id: c.id,
      gold: c.gold.route,
      claimed: diagnosed.diagnosis?.kind ?? null,
      routed: decision.route,
      verdict: decision.guard.verdict,
      ...(decision.guard.fact ? { fact: decision.guard.fact.kind } : {}),
      rejected: diagnosed.rejected.length,
      inputTokens: spent.reduce((n, r) => n + r.usage.inputTokens + r.usage.cacheReadTokens + r.usage.cacheWriteTokens, 0),
      outputTokens: spent.reduce((n, r) => n + r.usage.outputTokens, 0),
      costUsd: spent.reduce((n, r) => n + r.costUsd, 0),
      ...(error ? { error } : {}),
    };
    results.push(result);
    o.onCase?.(result, index);
  }
  return results;
}
