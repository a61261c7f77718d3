import { Route, RUN_OUTCOMES, type RunOutcome } from '../../schema/events';
import type { RunState } from '../reducer';
import { guardWords, outcomeWords, routeWords, whatIsWrong } from './words';

/**
 * The workspace's runs in figures: how often they pass, where the router sent the fixes and
 * how often a check overruled the Debugger, which recovery rungs fired, what the operator
 * decided, and what each ticket cost. One pure function over run states, so `ticket-runner
 * stats` and the extension's Run Statistics panel say the same numbers.
 */

export const GUARD_VERDICTS = ['confirmed', 'abstained', 'overridden', 'notNeeded'] as const;
export type GuardVerdict = (typeof GUARD_VERDICTS)[number];

export const NO_RUNS = 'No runs yet. Start one with: ticket-runner run .tickets/<ID>.ticket.json';

export interface TicketStats {
  ticketId: string;
  runs: number;
  passed: number;
  calls: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
}

export interface RunStats {
  runs: number;
  /** Runs by how they ended; `running` is a log with no end yet (running, or its process died). */
  outcomes: Record<RunOutcome | 'running', number>;
  /** Passed over the runs that ended (null with none): a run still going is neither. */
  passRate: number | null;
  /** Runs made by the scripted model (a replay: its cost is nought). */
  scripted: number;
  /** Runs whose changes were rolled back since (counted by how they ended all the same). */
  rolledBack: number;
  attempts: { total: number; medianPerRun: number | null };
  /** Each diagnosis's route, as the router sent it after the guard. */
  routes: Record<Route, number>;
  guard: Record<GuardVerdict, number>;
  /** The Debugger's claims a check overruled: what it claimed, where the fix went instead. */
  vetoes: { claimed: string; route: Route; count: number }[];
  /** Recovery rungs fired, by rung number. */
  rungs: Record<string, number>;
  corrections: { requested: number; accepted: number; rejected: number; pending: number };
  usage: { calls: number; inputTokens: number; outputTokens: number; costUsd: number };
  /** Tickets run (distinct ids), and the mean cost and tokens of one across its runs. */
  tickets: number;
  perTicket: { costUsd: number; tokens: number } | null;
  byTicket: TicketStats[];
}

const zero = <K extends string>(keys: readonly K[]): Record<K, number> => Object.fromEntries(keys.map((k) => [k, 0])) as Record<K, number>;

function median(values: readonly number[]): number | null {
  if (!values.length) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function runStats(states: readonly RunState[]): RunStats {
  const outcomes = zero([...RUN_OUTCOMES, 'running'] as const);
  const routes = zero(Route.options);
  const guard = zero(GUARD_VERDICTS);
  const vetoes = new Map<string, { claimed: string; route: Route; count: number }>();
  const rungs: Record<string, number> = {};
  const corrections = { requested: 0, accepted: 0, rejected: 0, pending: 0 };
  const usage = { calls: 0, inputTokens: 0, outputTokens: 0, costUsd: 0 };
  const byTicket = new Map<string, TicketStats>();
  const attemptsPerEndedRun: number[] = [];
  let attempts = 0;
  for (const s of states) {
    outcomes[s.status]++;
    attempts += s.attempts.length;
    if (s.status !== 'running') attemptsPerEndedRun.push(s.attempts.length);
    for (const a of s.attempts) {
      for (const r of a.rungs) rungs[r.rung] = (rungs[r.rung] ?? 0) + 1;
      if (!a.route) continue;
      routes[a.route.route]++;
      if (a.route.verdict in guard) guard[a.route.verdict as GuardVerdict]++;
      if (a.route.verdict !== 'overridden') continue;
      const claimed = a.route.claimed ?? 'none';
      const key = `${claimed}>${a.route.route}`;
      const veto = vetoes.get(key) ?? { claimed, route: a.route.route, count: 0 };
      veto.count++;
      vetoes.set(key, veto);
    }
    for (const c of s.corrections) {
      corrections.requested++;
      corrections[c.status]++;
    }
    const t = byTicket.get(s.ticketId) ?? {
      ticketId: s.ticketId,
      runs: 0,
      passed: 0,
      calls: 0,
      inputTokens: 0,
      outputTokens: 0,
      costUsd: 0,
    };
    t.runs++;
    if (s.status === 'passed') t.passed++;
    t.calls += s.usage.calls;
    t.inputTokens += s.usage.inputTokens;
    t.outputTokens += s.usage.outputTokens;
    t.costUsd += s.usage.costUsd;
    byTicket.set(s.ticketId, t);
    usage.calls += s.usage.calls;
    usage.inputTokens += s.usage.inputTokens;
    usage.outputTokens += s.usage.outputTokens;
    usage.costUsd += s.usage.costUsd;
  }
  const ended = states.length - outcomes.running;
  const tickets = byTicket.size;
  return {
    runs: states.length,
    outcomes,
    passRate: ended ? outcomes.passed / ended : null,
    scripted: states.filter((s) => s.model?.scripted).length,
    rolledBack: states.filter((s) => s.rolledBack).length,
    attempts: { total: attempts, medianPerRun: median(attemptsPerEndedRun) },
    routes,
    guard,
    vetoes: [...vetoes.values()].sort((a, b) => b.count - a.count || a.claimed.localeCompare(b.claimed)),
    rungs,
    corrections,
    usage,
    tickets,
    perTicket: tickets ? { costUsd: usage.costUsd / tickets, tokens: (usage.inputTokens + usage.outputTokens) / tickets } : null,
    byTicket: [...byTicket.values()].sort((a, b) => a.ticketId.localeCompare(b.ticketId, undefined, { numeric: true })),
  };
}

const RUNG_WORDS: Record<string, string> = {
  '1': 'a stalled or runaway answer stopped and asked again',
  '2': 'a retry with the failure',
  '3': 'a retry with extended thinking',
  '4': 'the Coder ran the tests itself',
};

const pct = (x: number) => `${Math.round(x * 100)}%`;
const dollars = (x: number) => `$${x.toFixed(4)}`;
const count = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** The figures as plain lines, one section each: the CLI prints them, the panel shows the same sections. */
export function statsSections(st: RunStats): { title: string; lines: string[] }[] {
  const ended = st.runs - st.outcomes.running;
  const outcomeLines = [...RUN_OUTCOMES, 'running' as const]
    .filter((o) => st.outcomes[o])
    .map((o) => `${o === 'running' ? 'not ended (running or interrupted)' : outcomeWords(o)}: ${st.outcomes[o]}`);
  return [
    {
      title: 'Runs',
      lines: [
        `${count(st.runs, 'run')} of ${count(st.tickets, 'ticket')}; ${st.passRate === null ? 'none has stopped yet' : `${pct(st.passRate)} passed (${st.outcomes.passed} of the ${ended} that stopped)`}`,
        ...outcomeLines,
        ...(st.scripted ? [`made by the scripted model (replays): ${st.scripted}`] : []),
        ...(st.rolledBack ? [`rolled back since: ${st.rolledBack}`] : []),
        `attempts: ${st.attempts.total}; median per stopped run: ${st.attempts.medianPerRun ?? 'none'}`,
      ],
    },
    {
      title: "Routes (where the Debugger's diagnosis sent the fix)",
      lines: Route.options
        .filter((r) => st.routes[r])
        .map((r) => `${routeWords(r)}: ${st.routes[r]}`)
        .concat(Route.options.some((r) => st.routes[r]) ? [] : ['no diagnosis was routed']),
    },
    {
      title: 'The guard (a deterministic check on each route)',
      lines: [
        ...GUARD_VERDICTS.filter((v) => st.guard[v]).map((v) => `${guardWords(v)}: ${st.guard[v]}`),
        st.vetoes.length
          ? `vetoes: ${st.vetoes.map((v) => `the Debugger blamed ${whatIsWrong(v.claimed)}, a check sent it ${routeWords(v.route)} (${v.count})`).join('; ')}`
          : 'vetoes: none',
      ],
    },
    {
      title: 'Recovery rungs fired',
      lines: Object.keys(st.rungs).length
        ? Object.entries(st.rungs).map(([r, n]) => `rung ${r}, ${RUNG_WORDS[r] ?? 'a recovery step'}: ${n}`)
        : ['none'],
    },
    {
      title: 'Corrections (changes proposed to you)',
      lines: [
        `requested: ${st.corrections.requested}; accepted: ${st.corrections.accepted}; rejected: ${st.corrections.rejected}; waiting: ${st.corrections.pending}`,
      ],
    },
    {
      title: 'Cost',
      lines: [
        `${count(st.usage.calls, 'model call')}, ${st.usage.inputTokens} tokens in, ${st.usage.outputTokens} out, ${dollars(st.usage.costUsd)}`,
        ...(st.perTicket ? [`per ticket: ${dollars(st.perTicket.costUsd)}, ${Math.round(st.perTicket.tokens)} tokens`] : []),
      ],
    },
  ];
}

/** The per-ticket table: a header row, then a row per ticket. */
export function statsTable(st: RunStats): string[][] {
  return [
    ['ticket', 'runs', 'passed', 'calls', 'tokens in', 'tokens out', 'cost'],
    ...st.byTicket.map((t) => [t.ticketId, t.runs, t.passed, t.calls, t.inputTokens, t.outputTokens, dollars(t.costUsd)].map(String)),
  ];
}

/** The plain table `ticket-runner stats` prints. */
export function formatRunStats(st: RunStats): string {
  if (!st.runs) return NO_RUNS;
  const out: string[] = [];
  for (const s of statsSections(st)) out.push(s.title, ...s.lines.map((l) => `  ${l}`), '');
  const rows = statsTable(st);
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  out.push('By ticket', ...rows.map((r) => '  ' + r.map((c, i) => (i ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join('  ')));
  return out.join('\n');
}
