import { GATE_NOT_ENABLED, type GateEvidence } from '../../schema/gates';
import type { AttemptState, RunState } from '../reducer';
import { gateWords } from './words';

/**
 * What a finished run checked, in plain words, one line per check: the last attempt's checks
 * (the ones the verdict rests on), then each gate's last run, a gate that checks again what an
 * attempt's check did (the type check, lint, the project's tests) on the same line as it. The
 * run view shows it above the attempts; any host can print it.
 */
export interface VerdictLine {
  /** Stable: the check or the gate (`check:tests`, `gate:coverage`); a check a gate runs again keeps the check's. */
  key: string;
  /** What was checked, in words: "Type check". */
  label: string;
  status: 'passed' | 'failed' | 'notChecked' | 'error';
  /** The result in words: "passed", "not checked — no ESLint config in the workspace". */
  result: string;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

const TYPE_CHECK = 'Type check';
const NO_NEW_ERRORS = 'no new errors';

/**
 * The gates that run an attempt's check again, on the whole change: each says its result on the
 * check's line, and the type check says where each looked (the attempt's on the changed files
 * and what imports them, the gate's on the whole project).
 */
const SAME_CHECK: Record<string, { check: string; scopes?: { check: string; gate: string } }> = {
  typecheck: { check: 'check:types', scopes: { check: 'the changed files', gate: 'the whole project' } },
  lint: { check: 'check:lint' },
  projectTests: { check: 'check:projectTests' },
};

/** The worse of two results wins the line: a failure, then a check that could not run, then one that did not. */
const RANK: Record<VerdictLine['status'], number> = { failed: 3, error: 2, notChecked: 1, passed: 0 };

/**
 * One line for a check and the gate that ran it again. A scoped check says where each looked,
 * both results when they differ; the others say the check's words, or the worse result when the
 * gate's differs (a gate that failed after the attempts passed is the one the user acts on).
 */
function sameCheck(check: VerdictLine | undefined, gate: VerdictLine, g: RunState['gates'][number]): VerdictLine {
  const { check: key, scopes } = SAME_CHECK[g.gate]!;
  const label = scopes ? TYPE_CHECK : gate.label;
  const where = (result: string, scope: string | undefined) => (scope ? `${result} (${scope})` : result);
  if (!check) return { key, label, status: gate.status, result: where(gate.result, scopes?.gate) };
  const repaired = g.repaired && gate.status === 'passed' ? ', after a repair' : '';
  if (check.status === gate.status && (gate.status === 'passed' || !scopes))
    return { key, label, status: gate.status, result: where(`${check.result}${repaired}`, scopes && `${scopes.check} and ${scopes.gate}`) };
  const worse = RANK[gate.status] > RANK[check.status] ? gate : check;
  if (!scopes) return { key, label, status: worse.status, result: worse.result };
  return { key, label, status: worse.status, result: `${where(check.result, scopes.check)}; ${where(gate.result, scopes.gate)}` };
}

/**
 * An attempt's checks, one line each: the run view's attempts say them in these words too.
 * Only what the run introduced counts (the baseline's findings are not the change's), hence "new".
 */
export function checkLines(a: AttemptState): VerdictLine[] {
  const out: VerdictLine[] = [];
  const add = (key: string, label: string, status: VerdictLine['status'], result: string) =>
    out.push({ key: `check:${key}`, label, status, result });
  if (a.parse) add('parse', 'Syntax', a.parse.ok ? 'passed' : 'failed', a.parse.ok ? 'passed' : plural(a.parse.problems.length, 'problem'));
  if (a.diagnostics) {
    const errors = a.diagnostics.diagnostics.filter((d) => d.category === 'error').length;
    add('types', TYPE_CHECK, a.diagnostics.ok ? 'passed' : 'failed', a.diagnostics.ok ? NO_NEW_ERRORS : plural(errors, 'type error'));
  }
  if (a.lint) {
    const l = a.lint;
    const lint = gateWords('lint');
    if (l.status === 'passed') add('lint', lint, 'passed', 'no new problems');
    else if (l.status === 'skipped') add('lint', lint, 'notChecked', `not checked — ${l.detail ?? 'no linter in the workspace'}`);
    else if (l.status === 'failed') add('lint', lint, 'failed', plural(l.problems.length, 'problem'));
    else add('lint', lint, 'error', `could not run${l.detail ? ` — ${l.detail}` : ''}`);
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
    add('projectTests', gateWords('projectTests'), p.newlyFailing.length ? 'failed' : 'passed', result);
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
      return line('passed', `${g.gate === 'typecheck' ? NO_NEW_ERRORS : g.gate === 'lint' ? 'no new problems' : 'passed'}${repaired}`);
    case 'failed':
      return line('failed', `failed${repaired} — ${gateDetailWords(g)}`);
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
  const lines = last ? checkLines(last) : [];
  lines.push(...heldOutLine(state, last));
  // The last run of each gate is its verdict; a gate the run was not asked for is named once, together.
  const byGate = new Map<string, RunState['gates'][number]>();
  for (const g of state.gates) byGate.set(g.gate, g);
  const notEnabled: string[] = [];
  for (const g of byGate.values()) {
    if (g.status === 'skipped' && g.detail === GATE_NOT_ENABLED) notEnabled.push(gateWords(g.gate));
    else {
      const line = gateLine(g);
      const same = SAME_CHECK[g.gate];
      const at = same ? lines.findIndex((l) => l.key === same.check) : -1;
      if (!same) lines.push(line);
      else if (at < 0) lines.push(sameCheck(undefined, line, g));
      else lines[at] = sameCheck(lines[at], line, g);
    }
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

/** One line as text: "Type check: no new errors (the changed files and the whole project)". */
export const verdictText = (l: VerdictLine): string => `${l.label}: ${l.result}`;

/**
 * A gate's detail as the editor's views say it: the project-wide type check by what it found, not
 * by how the tool ran (its version, its kept process, the files it parsed: the log keeps those).
 */
export function gateDetailWords(g: { status: string; detail: string; evidence?: GateEvidence }): string {
  const e = g.evidence;
  if (e?.kind !== 'typecheck' || (g.status !== 'passed' && g.status !== 'failed')) return g.detail;
  const found = e.diagnostics.length
    ? `${plural(e.diagnostics.length, 'error')} the change reaches`
    : `${NO_NEW_ERRORS} in the whole project`;
  const elsewhere = e.unrelated.length ? `; ${plural(e.unrelated.length, 'error')} in files the change does not reach, not counted` : '';
  const before = e.preExisting.length ? `; ${plural(e.preExisting.length, 'error')} already there before the run, not counted` : '';
  return `${found}${elsewhere}${before}`;
}
