import { GATE_NOT_ENABLED } from '../../schema/gates';
import type { AttemptState, RunState } from '../reducer';
import { gateWords } from './words';

/**
 * What a finished run checked, in plain words, one line per check: the last attempt's checks
 * (the ones the verdict rests on), then each gate's last run. The run view shows it above the
 * attempts; any host can print it.
 */
export interface VerdictLine {
  /** Stable: the check or the gate (`check:tests`, `gate:lint`). */
  key: string;
  /** What was checked, in words: "Type check". */
  label: string;
  status: 'passed' | 'failed' | 'notChecked' | 'error';
  /** The result in words: "passed", "not checked — no ESLint config in the workspace". */
  result: string;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

function attemptLines(a: AttemptState): VerdictLine[] {
  const out: VerdictLine[] = [];
  const add = (key: string, label: string, status: VerdictLine['status'], result: string) =>
    out.push({ key: `check:${key}`, label, status, result });
  if (a.parse) add('parse', 'Syntax', a.parse.ok ? 'passed' : 'failed', a.parse.ok ? 'passed' : plural(a.parse.problems.length, 'problem'));
  if (a.diagnostics) {
    const errors = a.diagnostics.diagnostics.filter((d) => d.category === 'error').length;
    add('types', 'Type check', a.diagnostics.ok ? 'passed' : 'failed', a.diagnostics.ok ? 'passed' : plural(errors, 'type error'));
  }
  if (a.lint) {
    const l = a.lint;
    if (l.status === 'passed') add('lint', 'Lint', 'passed', 'passed');
    else if (l.status === 'skipped') add('lint', 'Lint', 'notChecked', `not checked — ${l.detail ?? 'no linter in the workspace'}`);
    else if (l.status === 'failed') add('lint', 'Lint', 'failed', plural(l.problems.length, 'problem'));
    else add('lint', 'Lint', 'error', `could not run${l.detail ? ` — ${l.detail}` : ''}`);
  }
  if (a.tests) {
    const t = a.tests;
    const all = t.passed + t.failed;
    const result =
      t.status === 'passed' ? `passed (${t.passed} of ${all})` : t.status === 'timeout' ? 'timed out' : `${t.failed} of ${all} failed`;
    add('tests', "The ticket's tests", t.status === 'passed' ? 'passed' : 'failed', result);
  }
  if (a.projectTests) {
    const p = a.projectTests;
    const result = p.newlyFailing.length
      ? `${plural(p.newlyFailing.length, 'test')} that passed before now fail`
      : `passed (${plural(p.result.passed, 'test')} in ${plural(p.files.length, 'file')} that use the change)`;
    add('projectTests', 'Project tests', p.newlyFailing.length ? 'failed' : 'passed', result);
  }
  return out;
}

/**
 * What the held-out cases (generalize) said of the last attempt: a line only for a run that held
 * something out, or whose ticket turned generalize off (which the verdict then says).
 */
function heldOutLine(state: RunState, a: AttemptState | undefined): VerdictLine[] {
  const line = (status: VerdictLine['status'], result: string): VerdictLine[] => [
    { key: 'check:heldOut', label: 'Held-out cases', status, result },
  ];
  const heldOut = state.manifest?.heldOut;
  if (heldOut?.generalize === false) return line('notChecked', 'none — the ticket turned generalize off, so nothing was held out');
  const planned = heldOut?.files.reduce((n, f) => n + f.cases.length, 0) ?? 0;
  if (!planned) return [];
  const h = a?.heldOut;
  if (!h) return line('notChecked', `not run (${plural(planned, 'case')}) — the visible cases did not pass`);
  if (h.status === 'passed') return line('passed', `passed (${h.passed} of ${planned}, never shown to the Coder)`);
  return line(
    'failed',
    `${h.failed} of ${planned} failed: the fix is too narrow${h.criteria.length ? ` for ${h.criteria.join(', ')}` : ''}`,
  );
}

function gateLine(g: RunState['gates'][number]): VerdictLine {
  const label = gateWords(g.gate);
  const repaired = g.repaired ? ' after a repair' : '';
  const line = (status: VerdictLine['status'], result: string): VerdictLine => ({ key: `gate:${g.gate}`, label, status, result });
  switch (g.status) {
    case 'passed':
      return line('passed', `passed${repaired}`);
    case 'failed':
      return line('failed', `failed${repaired} — ${g.detail}`);
    case 'skipped':
      return line('notChecked', `not checked — ${g.detail}`);
    default:
      return line('error', g.optional ? `not judged (optional) — ${g.detail}` : `could not judge the change — ${g.detail}`);
  }
}

/** The lines of a finished run's summary; empty while it runs, or when nothing was checked. */
export function verdictLines(state: RunState): VerdictLine[] {
  if (!state.finished) return [];
  const last = state.attempts[state.attempts.length - 1];
  const lines = last ? attemptLines(last) : [];
  lines.push(...heldOutLine(state, last));
  // The last run of each gate is its verdict; a gate the run was not asked for is named once, together.
  const byGate = new Map<string, RunState['gates'][number]>();
  for (const g of state.gates) byGate.set(g.gate, g);
  const notEnabled: string[] = [];
  for (const g of byGate.values()) {
    if (g.status === 'skipped' && g.detail === GATE_NOT_ENABLED) notEnabled.push(gateWords(g.gate));
    else lines.push(gateLine(g));
  }
  if (notEnabled.length) lines.push({ key: 'gates:notEnabled', label: 'Not enabled', status: 'notChecked', result: notEnabled.join(', ') });
  return lines;
}

/**
 * What judged a finished run's change, counted: "2 visible cases, 1 held-out case and 0 property
 * runs" (the reducer's `judgedBy`). Undefined while it runs, or when its last attempt ran no test.
 */
export function judgedByText(state: RunState): string | undefined {
  const j = state.finished ? state.judgedBy : undefined;
  if (!j) return undefined;
  return `${plural(j.visible, 'visible case')}, ${plural(j.heldOut, 'held-out case')} and ${plural(j.propertyRuns, 'property run')}`;
}

/** One line as text: "Type check: passed". */
export const verdictText = (l: VerdictLine): string => `${l.label}: ${l.result}`;
