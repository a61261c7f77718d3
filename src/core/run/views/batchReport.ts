import { GATE_NOT_ENABLED } from '../../schema/gates';
import type { RunState } from '../reducer';
import { describeStop } from './report';

/**
 * A batch of tickets in one report, built from each run's log alone: `batch` (one machine) and
 * `merge-report` (the runs of many machines) both call it, so the two cannot say different things.
 * Outcomes are the reducer's; nothing here re-derives a verdict.
 */

/** A ticket's outcome in a batch: a run's outcome, or why no run ended (never started, its process died). */
export type BatchOutcome = RunState['status'] | 'notStarted';

export interface BatchCorrection {
  requestId: string;
  target: string;
  fact: string;
  /** The commands that settle it, in the workspace the run lives in. */
  accept: string;
  reject: string;
}

export interface BatchEntry {
  ticket: string;
  ticketId: string;
  outcome: BatchOutcome;
  exitCode: number | null;
  runId: string | null;
  attempts: number;
  /** The route of each routed attempt, in order. */
  routes: string[];
  costUsd: number;
  /** From the log: the run's first event to its last. */
  wallMs: number;
  /** The stop reason, in the words of every other view. */
  stop: string;
  corrections: BatchCorrection[];
  /** Where the run's files and log live after the batch (a kept worktree or copy), when they still do. */
  workspace: string | null;
  /** The branch that holds a passed ticket's change. */
  branch: string | null;
  /**
   * The gates the run was asked for that did not judge the change, each `gate: why` (a skip, such
   * as no ESLint config, or an optional gate that could not run): a pass is a pass without them.
   */
  notChecked: string[];
  /** What judged the change (the reducer's `judgedBy`, without its attempt), or null when no test ran. */
  judgedBy: Omit<NonNullable<RunState['judgedBy']>, 'attempt'> | null;
}

/** The batch's dollar cap (`batch --max-dollars`) and what its calls spent, as the batch counted them. */
export interface BatchBudget {
  maxDollars: number;
  spentUsd: number;
  /** The cap was reached: the tickets not started yet never started, the running ones stopped at their next call. */
  reached: boolean;
}

export interface BatchReport {
  tickets: BatchEntry[];
  totals: Record<BatchOutcome, number> & { tickets: number; costUsd: number };
  wallMs: number | null;
  /** Only when the batch had a dollar cap. */
  budget?: BatchBudget;
}

/** What the host knows beyond the log: the process's exit code and where the run's tree is. */
export interface RunPlace {
  exitCode: number | null;
  /** The exit code `run` gives the log's outcome: a process that exited otherwise is not believed. */
  expectedExit?: number;
  workspace: string | null;
  branch?: string | null;
  /** The words of the `--model` option the resolve commands repeat (`--model scripted`). */
  modelOption?: string;
}

const quote = (s: string): string => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

function resolveCommands(runId: string, place: RunPlace): { accept: string; reject: string } {
  const tail = `${place.workspace ? ` --workspace ${quote(place.workspace)}` : ''}${place.modelOption ? ` ${place.modelOption}` : ''}`;
  return { accept: `ticket-runner resolve ${runId} accept${tail}`, reject: `ticket-runner resolve ${runId} reject --reason '...'${tail}` };
}

/** One ticket's line of the report, from its run's state. */
export function batchEntry(ticket: string, state: RunState, place: RunPlace): BatchEntry {
  const started = state.startedAt ? Date.parse(state.startedAt) : NaN;
  const last = state.updatedAt ? Date.parse(state.updatedAt) : NaN;
  // The log and the process must tell the same story: a log that says "passed" next to a process
  // that did not exit 0 (a log written by something else, a crash after the verdict) is no pass.
  const disagrees = place.exitCode !== null && place.expectedExit !== undefined && place.exitCode !== place.expectedExit;
  const stop = state.finished ? describeStop(state.finished.reason) : 'the run did not finish: its process ended before run.finished';
  return {
    ticket,
    ticketId: state.ticketId,
    outcome: disagrees ? 'error' : state.status,
    exitCode: place.exitCode,
    runId: state.runId,
    attempts: state.attempts.length,
    routes: state.attempts.flatMap((a) => (a.route ? [a.route.route] : [])),
    costUsd: state.usage.costUsd,
    wallMs: Number.isFinite(started) && Number.isFinite(last) ? last - started : 0,
    stop: disagrees ? `its log says ${state.status} (${stop}) but its process exited ${place.exitCode}: not believed` : stop,
    corrections: state.corrections
      .filter((c) => c.status === 'pending')
      .map((c) => ({
        requestId: c.request.id,
        target: c.request.target,
        fact: c.request.fact.detail,
        ...resolveCommands(state.runId, place),
      })),
    workspace: place.workspace,
    branch: place.branch ?? null,
    notChecked: notChecked(state),
    judgedBy: judgedBy(state),
  };
}

function judgedBy(state: RunState): BatchEntry['judgedBy'] {
  if (!state.judgedBy) return null;
  const { visible, heldOut, propertyRuns, heldOutFailed, heldOutCriteria } = state.judgedBy;
  return { visible, heldOut, propertyRuns, heldOutFailed, heldOutCriteria };
}

/** Each asked-for gate whose last run did not judge: skipped (not for want of being asked), or an optional gate's error. */
function notChecked(state: RunState): string[] {
  const last = new Map(state.gates.map((g) => [g.gate, g] as const));
  const skipped = [...last.values()]
    .filter((g) => g.status === 'skipped' && g.detail !== GATE_NOT_ENABLED)
    .map((g) => `${g.gate}: ${g.detail}`);
  return [...skipped, ...state.notJudged.map((n) => `${n.gate}: ${n.detail}`)];
}

/** A ticket with no run log: it never started (the batch was cancelled first) or its process failed before the run began. */
export function entryWithoutRun(
  ticket: string,
  ticketId: string,
  outcome: 'notStarted' | 'error',
  stop: string,
  exitCode: number | null,
): BatchEntry {
  return {
    ticket,
    ticketId,
    outcome,
    exitCode,
    runId: null,
    attempts: 0,
    routes: [],
    costUsd: 0,
    wallMs: 0,
    stop,
    corrections: [],
    workspace: null,
    branch: null,
    notChecked: [],
    judgedBy: null,
  };
}

export function batchReport(tickets: BatchEntry[], wallMs: number | null, budget?: BatchBudget): BatchReport {
  const totals = {
    tickets: tickets.length,
    costUsd: 0,
    passed: 0,
    failed: 0,
    needsOperator: 0,
    cancelled: 0,
    error: 0,
    running: 0,
    notStarted: 0,
  };
  for (const t of tickets) {
    totals[t.outcome]++;
    totals.costUsd += t.costUsd;
  }
  return { tickets, totals, wallMs, ...(budget ? { budget } : {}) };
}

/**
 * The batch's exit code: a cancel wins, then any ticket that did not pass or wait
 * (failed, error, a run that never finished, one the spent dollar cap never started),
 * then any that waits for the operator.
 */
export function batchExitCode(r: BatchReport, codes: { passed: number; failed: number; needsOperator: number; cancelled: number }): number {
  const t = r.totals;
  if (t.cancelled || (t.notStarted && !r.budget?.reached)) return codes.cancelled;
  if (t.failed || t.error || t.running || t.notStarted) return codes.failed;
  return t.needsOperator ? codes.needsOperator : codes.passed;
}

const xml = (s: string): string =>
  s
    // Characters XML 1.0 cannot carry at all: dropped, so one odd byte in a message cannot break the file.
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');

const seconds = (ms: number): string => (ms / 1000).toFixed(3);

const property = (name: string, value: string | number): string => `<property name="${name}" value="${xml(String(value))}"/>`;

/** What judged the change, as properties: the counts, and the criteria of a held-out failure. */
function judgedProperties(j: BatchEntry['judgedBy']): string {
  if (!j) return '';
  const failed = j.heldOutFailed ? property('heldOutFailedFor', j.heldOutCriteria.join(', ') || 'a case with no criterion') : '';
  return `${property('visibleCases', j.visible)}${property('heldOutCases', j.heldOut)}${property('propertyRuns', j.propertyRuns)}${failed}`;
}

/** A failure message's tail when the held-out cases failed: which criteria the fix is too narrow for. */
function tooNarrow(j: BatchEntry['judgedBy']): string {
  if (!j?.heldOutFailed) return '';
  return `; the held-out cases failed${j.heldOutCriteria.length ? ` for ${j.heldOutCriteria.join(', ')}` : ''}: the fix is too narrow`;
}

/** What judged the change, in the words of a failure's detail. */
function judgedLines(j: BatchEntry['judgedBy']): string[] {
  if (!j) return [];
  const lines = [`judged by: ${j.visible} visible case(s), ${j.heldOut} held-out case(s), ${j.propertyRuns} property run(s)`];
  if (j.heldOutFailed)
    lines.push(
      `held-out cases failed: ${j.heldOutFailed} of ${j.heldOut}, the fix too narrow${j.heldOutCriteria.length ? ` for ${j.heldOutCriteria.join(', ')}` : ''}`,
    );
  return lines;
}

function testcase(t: BatchEntry): string {
  const open = `    <testcase classname="ticket-runner" name="${xml(`${t.ticketId} (${t.ticket})`)}" time="${seconds(t.wallMs)}">`;
  const unchecked = t.notChecked.length ? property('notChecked', t.notChecked.join('; ')) : '';
  const props = `      <properties>${property('outcome', t.outcome)}${property('runId', t.runId ?? '')}${unchecked}${judgedProperties(t.judgedBy)}</properties>`;
  const detail = [
    `outcome: ${t.outcome}`,
    `run: ${t.runId ?? 'none'}`,
    `attempts: ${t.attempts}`,
    `routes: ${t.routes.join(', ') || 'none'}`,
    ...judgedLines(t.judgedBy),
    ...t.corrections.flatMap((c) => [`settle ${c.requestId}: ${c.accept}`, `  or: ${c.reject}`]),
  ].join('\n');
  let body: string;
  // "Needs the operator" is not a failure and not a pass: JUnit's nearest state is skipped, with the reason.
  if (t.outcome === 'passed')
    body = t.notChecked.length ? `      <system-out>${xml(`passed; not checked: ${t.notChecked.join('; ')}`)}</system-out>\n` : '';
  else if (t.outcome === 'needsOperator') body = `      <skipped message="${xml(`needs the operator: ${t.stop}`)}"/>\n`;
  else if (t.outcome === 'failed')
    body = `      <failure message="${xml(`${t.stop}${tooNarrow(t.judgedBy)}`)}" type="failed">${xml(detail)}</failure>\n`;
  else body = `      <error message="${xml(t.stop)}" type="${xml(t.outcome)}">${xml(detail)}</error>\n`;
  return `${open}\n${props}\n${body}    </testcase>`;
}

/** The report as JUnit XML: one test case per ticket, the stop reason as the failure message. */
export function batchJunit(r: BatchReport): string {
  const t = r.totals;
  const failures = t.failed;
  const errors = t.error + t.cancelled + t.notStarted + t.running;
  const time = seconds(r.wallMs ?? r.tickets.reduce((s, x) => s + x.wallMs, 0));
  const counts = `tests="${t.tickets}" failures="${failures}" errors="${errors}" skipped="${t.needsOperator}" time="${time}"`;
  const b = r.budget;
  const budget = b
    ? [
        `    <properties><property name="maxDollars" value="${b.maxDollars}"/><property name="spentUsd" value="${b.spentUsd.toFixed(6)}"/><property name="budgetReached" value="${b.reached}"/></properties>`,
      ]
    : [];
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="ticket-runner" ${counts}>`,
    `  <testsuite name="ticket-runner batch" ${counts}>`,
    ...budget,
    ...r.tickets.map(testcase),
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}

/** The batch in a few lines for the terminal: one per ticket, then what waits for the operator. */
export function formatBatchSummary(r: BatchReport): string {
  const lines = r.tickets.map(
    (t) => `${t.ticketId.padEnd(10)} ${t.outcome.padEnd(13)} ${t.runId ?? '-'}  ${t.stop}${t.branch ? `  [branch ${t.branch}]` : ''}`,
  );
  const t = r.totals;
  lines.push(
    `${t.tickets} ticket(s): ${t.passed} passed, ${t.failed} failed, ${t.needsOperator} need the operator, ${t.error} error, ${t.cancelled + t.notStarted} cancelled or not started; $${t.costUsd.toFixed(4)}${r.wallMs === null ? '' : ` in ${(r.wallMs / 1000).toFixed(1)} s`}`,
  );
  if (r.budget)
    lines.push(
      `The batch's dollar budget: $${r.budget.spentUsd.toFixed(4)} of $${r.budget.maxDollars} spent${r.budget.reached ? ': reached, so no further call or ticket started' : ''}`,
    );
  const waiting = r.tickets.flatMap((x) => x.corrections);
  if (waiting.length) {
    lines.push('Correction requests to settle:');
    for (const c of waiting) lines.push(`  ${c.requestId} (the ${c.target} is wrong: ${c.fact})`, `    ${c.accept}`, `    ${c.reject}`);
  }
  return lines.join('\n');
}
