import type { RunEvent } from '../../schema/events';
import { gateWords } from './words';

/**
 * Where a run's time went, from its log alone: the run writes an event as each step ends, so the
 * time between two events is what the run waited on for the second. Summed by what it waited on
 * (the model, the tests, the type-check...), with the longest single waits named, it says which
 * step to make faster, and, beside the run's CPU time, whether the run waited on the CPU at all.
 */
export interface Wait {
  /** What the run waited on, in the user's words. */
  what: string;
  ms: number;
  /** The attempt it belonged to, when it belonged to one. */
  attempt?: number;
}

export interface RunWaits {
  totalMs: number;
  /** Each wait, in the log's order. */
  waits: Wait[];
  /** The waits summed by what, longest first. */
  byWhat: { what: string; ms: number; count: number }[];
}

/** What the run waited on until `e` was written. */
function waitedOn(e: RunEvent): string {
  switch (e.type) {
    case 'run.started':
    case 'run.resumed':
      return 'starting (the ticket read, the sandbox and the checkers started)';
    case 'manifest.built':
      return 'building the manifest';
    case 'uncommitted.detected':
      return 'asking git about uncommitted files in scope';
    case 'baseline.recorded':
      return e.projectReusedFrom
        ? "the project's errors before the run (type-check reused)"
        : "the project's errors before the run (type-check)";
    case 'projectTests.baseline':
      return e.reusedFrom ? "the project's tests before the run (reused)" : "the project's tests before the run";
    case 'tests.materialized':
      return 'rendering the tests';
    case 'authored.listed':
      return 'listing the cases of the tests you wrote';
    case 'op.applied':
    case 'op.failed':
    case 'ops.checked':
      return "applying the ticket's ops";
    case 'model.called':
      return `the model (${e.role})`;
    case 'check.parsed':
      return 'parsing the change';
    case 'check.diagnosed':
    case 'check.autofixed':
      return 'type-checking the change';
    case 'check.linted':
      return 'linting the change';
    case 'tests.ran':
      return "the ticket's tests";
    case 'heldOut.ran':
      return 'the held-out cases';
    case 'projectTests.ran':
      return "the project's tests that import the change";
    case 'gate.ran':
      return `the gate: ${gateWords(e.gate)}`;
    case 'debugger.diagnosed':
      return "reading the Debugger's diagnosis";
    case 'run.finished':
      return 'the verdict';
    default:
      return 'the run itself (between its steps)';
  }
}

/** The run's waits, from its events in the log's order. */
export function runWaits(events: readonly RunEvent[]): RunWaits {
  const waits: Wait[] = [];
  for (let i = 1; i < events.length; i++) {
    const e = events[i]!;
    const ms = Date.parse(e.ts) - Date.parse(events[i - 1]!.ts);
    const attempt = 'attempt' in e && typeof e.attempt === 'number' && e.attempt > 0 ? e.attempt : undefined;
    waits.push({ what: waitedOn(e), ms, ...(attempt === undefined ? {} : { attempt }) });
  }
  const sums = new Map<string, { ms: number; count: number }>();
  for (const w of waits) {
    const s = sums.get(w.what) ?? { ms: 0, count: 0 };
    sums.set(w.what, { ms: s.ms + w.ms, count: s.count + 1 });
  }
  const first = events[0];
  const last = events.at(-1);
  return {
    totalMs: first && last ? Date.parse(last.ts) - Date.parse(first.ts) : 0,
    waits,
    byWhat: [...sums].map(([what, s]) => ({ what, ...s })).sort((a, b) => b.ms - a.ms),
  };
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

/** The waits as `show --waits` prints them: the sums by what, then the longest single waits. */
export function formatRunWaits(runId: string, w: RunWaits, longest = 5): string {
  const share = (ms: number) => `${w.totalMs > 0 ? Math.round((100 * ms) / w.totalMs) : 0}%`.padStart(4);
  const lines = [`Where run ${runId}'s ${seconds(w.totalMs)} went, by what it waited on:`];
  for (const s of w.byWhat)
    lines.push(`  ${seconds(s.ms).padStart(8)} ${share(s.ms)}  ${s.what}${s.count > 1 ? ` (${s.count} times)` : ''}`);
  lines.push(`The ${Math.min(longest, w.waits.length)} longest waits:`);
  for (const x of [...w.waits].sort((a, b) => b.ms - a.ms).slice(0, longest))
    lines.push(`  ${seconds(x.ms).padStart(8)} ${share(x.ms)}  ${x.what}${x.attempt === undefined ? '' : ` (attempt ${x.attempt})`}`);
  return lines.join('\n');
}
