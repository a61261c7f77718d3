import { FAILURE_KINDS } from '../schema/diagnosis';
import { Route } from '../schema/events';
import { GUARDED, type RoutingReport } from './report';

const pct = (x: number | null): string => (x === null ? '-' : `${(x * 100).toFixed(1)}%`);
const table = (rows: string[][]): string[] => {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows.map((r) =>
    r
      .map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
      .join('  ')
      .trimEnd(),
  );
};
const usd = (x: number): string => `$${x.toFixed(4)}`;

/** The benchmark's report as a person reads it: the matrix first, then the scores, then each case. */
export function formatReport(r: RoutingReport): string {
  const out = [
    `Routing benchmark: ${r.cases} cases, model ${r.model}`,
    `Gold routes: ${FAILURE_KINDS.map((k) => `${k} ${r.byGoldRoute[k]}`).join(', ')}`,
    '',
  ];
  out.push('Confusion matrix (a row is the gold route, a column where the router sent the case):');
  out.push(
    ...table([['gold \\ routed', ...Route.options], ...FAILURE_KINDS.map((g) => [g, ...Route.options.map((c) => String(r.matrix[g][c]))])]),
  );
  const right = (f: (x: RoutingReport['results'][number]) => boolean) => r.results.filter(f).length;
  out.push('');
  out.push(`Debugger accuracy (claimed kind = gold): ${pct(r.accuracy.debugger)} (${right((x) => x.claimed === x.gold)}/${r.cases})`);
  out.push(`Routed accuracy (after the guards):      ${pct(r.accuracy.routed)} (${right((x) => x.routed === x.gold)}/${r.cases})`);
  out.push('');
  out.push("Guards, over the Debugger's claims of their route (a confirmation sends the fix there, a veto to the code path):");
  out.push(
    ...table([
      ['route', 'claims', 'right confirmations', 'wrong confirmations', 'right vetoes', 'wrong vetoes', 'precision', 'recall'],
      ...GUARDED.map((g) => {
        const s = r.guards[g];
        return [
          g,
          String(s.claims),
          String(s.rightConfirmations),
          String(s.wrongConfirmations),
          String(s.rightVetoes),
          String(s.wrongVetoes),
          pct(s.precision),
          pct(s.recall),
        ];
      }),
    ]),
  );
  out.push('');
  out.push(
    `Cost: ${usd(r.usage.costUsd)}, ${r.usage.inputTokens} input and ${r.usage.outputTokens} output tokens; per case ${usd(r.usage.perCase.costUsd)}, ${r.usage.perCase.inputTokens} in, ${r.usage.perCase.outputTokens} out`,
  );
  if (r.errors) out.push(`${r.errors} case(s) got no answer from the model (counted as no diagnosis): see "error" below`);
  out.push('');
  out.push('Per case:');
  out.push(
    ...table([
      ['case', 'gold', 'claimed', 'routed', 'guard', 'tokens in', 'tokens out', 'cost', ''],
      ...r.results.map((x) => [
        x.id,
        x.gold,
        x.claimed ?? '(none)',
        x.routed,
        x.verdict,
        String(x.inputTokens),
        String(x.outputTokens),
        usd(x.costUsd),
        x.routed === x.gold ? '' : x.error ? `MISS (error: ${x.error})` : 'MISS',
      ]),
    ]),
  );
  return out.join('\n');
}

export interface ReportDelta {
  cases: { before: number; after: number };
  accuracy: { debugger: number; routed: number };
  guards: Record<(typeof GUARDED)[number], { precision: number | null; recall: number | null }>;
  /** Matrix cells that changed, as `gold→routed`. */
  matrix: Record<string, { before: number; after: number }>;
  /** Cases present in both whose route changed. */
  changed: { id: string; gold: string; before: string; after: string }[];
  costUsd: number;
}

const diff = (a: number | null, b: number | null): number | null =>
  a === null || b === null ? null : Math.round((b - a) * 10_000) / 10_000;

/** What changed from report A to report B: a new model, prompt or guard measured against the same corpus. */
export function compareReports(a: RoutingReport, b: RoutingReport): ReportDelta {
  const matrix: ReportDelta['matrix'] = {};
  for (const g of FAILURE_KINDS)
    for (const c of Route.options)
      if (a.matrix[g][c] !== b.matrix[g][c]) matrix[`${g}→${c}`] = { before: a.matrix[g][c], after: b.matrix[g][c] };
  const before = new Map(a.results.map((x) => [x.id, x]));
  const changed = b.results.flatMap((x) => {
    const old = before.get(x.id);
    return old && old.routed !== x.routed ? [{ id: x.id, gold: x.gold, before: old.routed, after: x.routed }] : [];
  });
  const guards = Object.fromEntries(
    GUARDED.map((g) => [
      g,
      { precision: diff(a.guards[g].precision, b.guards[g].precision), recall: diff(a.guards[g].recall, b.guards[g].recall) },
    ]),
  ) as ReportDelta['guards'];
  return {
    cases: { before: a.cases, after: b.cases },
    accuracy: { debugger: diff(a.accuracy.debugger, b.accuracy.debugger) ?? 0, routed: diff(a.accuracy.routed, b.accuracy.routed) ?? 0 },
    guards,
    matrix,
    changed,
    costUsd: Math.round((b.usage.costUsd - a.usage.costUsd) * 1e6) / 1e6,
  };
}

const signed = (x: number | null, asPct = true): string =>
  x === null ? 'n/a' : `${x >= 0 ? '+' : ''}${asPct ? `${(x * 100).toFixed(1)} pts` : String(x)}`;

export function formatComparison(a: RoutingReport, b: RoutingReport, names: [string, string]): string {
  const d = compareReports(a, b);
  const out = [`Comparing ${names[0]} (${a.model}, ${a.cases} cases) with ${names[1]} (${b.model}, ${b.cases} cases)`];
  if (a.cases !== b.cases) out.push('The reports cover different numbers of cases: the deltas mix corpus and model changes.');
  out.push(`Debugger accuracy: ${pct(a.accuracy.debugger)} → ${pct(b.accuracy.debugger)} (${signed(d.accuracy.debugger)})`);
  out.push(`Routed accuracy:   ${pct(a.accuracy.routed)} → ${pct(b.accuracy.routed)} (${signed(d.accuracy.routed)})`);
  for (const g of GUARDED) {
    out.push(
      `${g} guard: precision ${pct(a.guards[g].precision)} → ${pct(b.guards[g].precision)} (${signed(d.guards[g].precision)}), recall ${pct(a.guards[g].recall)} → ${pct(b.guards[g].recall)} (${signed(d.guards[g].recall)})`,
    );
  }
  const cells = Object.entries(d.matrix);
  out.push(
    cells.length
      ? `Matrix cells that changed (gold→routed): ${cells.map(([k, v]) => `${k} ${v.before} → ${v.after} (${signed(v.after - v.before, false)})`).join(', ')}`
      : 'The matrix did not change.',
  );
  if (d.changed.length)
    out.push(`Cases routed differently: ${d.changed.map((c) => `${c.id} (gold ${c.gold}) ${c.before} → ${c.after}`).join(', ')}`);
  out.push(`Cost: $${a.usage.costUsd.toFixed(4)} → $${b.usage.costUsd.toFixed(4)} (${d.costUsd >= 0 ? '+' : ''}$${d.costUsd.toFixed(4)})`);
  return out.join('\n');
}
