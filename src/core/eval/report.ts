import { FAILURE_KINDS, type FailureKind } from '../schema/diagnosis';
import { Route } from '../schema/events';
import type { CaseResult } from './runEval';

/** The guarded routes: a claim of one of these needs a machine fact, or it takes the code path. */
export const GUARDED = ['manifest', 'test', 'ticket'] as const satisfies readonly FailureKind[];
type Guarded = (typeof GUARDED)[number];

/**
 * How one guard did on the Debugger's claims of its route. A confirmation sends the fix to
 * the claimed owner; a veto sends it to the code path. Right means the gold route agrees.
 */
export interface GuardScore {
  claims: number;
  rightConfirmations: number;
  wrongConfirmations: number;
  rightVetoes: number;
  wrongVetoes: number;
  /** Of the confirmations, the share that were right (null: none). */
  precision: number | null;
  /** Of the right claims, the share confirmed (null: no right claim). */
  recall: number | null;
}

export interface RoutingReport {
  model: string;
  cases: number;
  byGoldRoute: Record<FailureKind, number>;
  /** matrix[gold][routed]: how many cases of each gold route went where. */
  matrix: Record<FailureKind, Record<Route, number>>;
  accuracy: {
    /** The Debugger's claimed kind equals the gold route. */
    debugger: number;
    /** The route after the guards equals the gold route. */
    routed: number;
  };
  guards: Record<Guarded, GuardScore>;
  /** Cases whose Debugger call failed for a reason other than its answer. */
  errors: number;
  usage: {
    inputTokens: number;
    outputTokens: number;
    costUsd: number;
    perCase: { inputTokens: number; outputTokens: number; costUsd: number };
  };
  results: CaseResult[];
}

const ratio = (n: number, d: number): number | null => (d === 0 ? null : Math.round((n / d) * 10_000) / 10_000);
const counts = <K extends string>(keys: readonly K[]): Record<K, number> =>
  Object.fromEntries(keys.map((k) => [k, 0])) as Record<K, number>;
const round = (x: number, digits: number) => Math.round(x * 10 ** digits) / 10 ** digits;

export function summarize(model: string, results: readonly CaseResult[]): RoutingReport {
  const byGoldRoute = counts(FAILURE_KINDS);
  const matrix = Object.fromEntries(FAILURE_KINDS.map((g) => [g, counts(Route.options)])) as RoutingReport['matrix'];
  for (const r of results) {
    byGoldRoute[r.gold]++;
    matrix[r.gold][r.routed]++;
  }
  const guards = {} as Record<Guarded, GuardScore>;
  for (const g of GUARDED) {
    const claims = results.filter((r) => r.claimed === g);
    // A claim of g ends on g (confirmed) or elsewhere (vetoed, or escalated by the repeat guard).
    const confirmed = claims.filter((r) => r.routed === g);
    const vetoed = claims.filter((r) => r.routed !== g);
    const s = {
      claims: claims.length,
      rightConfirmations: confirmed.filter((r) => r.gold === g).length,
      wrongConfirmations: confirmed.filter((r) => r.gold !== g).length,
      rightVetoes: vetoed.filter((r) => r.gold !== g).length,
      wrongVetoes: vetoed.filter((r) => r.gold === g).length,
    };
    guards[g] = {
      ...s,
      precision: ratio(s.rightConfirmations, confirmed.length),
      recall: ratio(s.rightConfirmations, s.rightConfirmations + s.wrongVetoes),
    };
  }
  const sum = (f: (r: CaseResult) => number) => results.reduce((n, r) => n + f(r), 0);
  const usage = {
    inputTokens: sum((r) => r.inputTokens),
    outputTokens: sum((r) => r.outputTokens),
    costUsd: round(
      sum((r) => r.costUsd),
      6,
    ),
  };
  const per = (x: number, digits: number) => (results.length ? round(x / results.length, digits) : 0);
  return {
    model,
    cases: results.length,
    byGoldRoute,
    matrix,
    accuracy: {
      debugger: ratio(results.filter((r) => r.claimed === r.gold).length, results.length) ?? 0,
      routed: ratio(results.filter((r) => r.routed === r.gold).length, results.length) ?? 0,
    },
    guards,
    errors: results.filter((r) => r.error !== undefined).length,
    usage: {
      ...usage,
      perCase: { inputTokens: per(usage.inputTokens, 0), outputTokens: per(usage.outputTokens, 0), costUsd: per(usage.costUsd, 6) },
    },
    results: [...results],
  };
}
