import type { RunEvent } from '../schema';
import type { EventOf } from '../schema/events';
import type { AttemptState, CorrectionState, RunState } from './runState';

// The state's types are derived from its schema (./runState.ts); the views import them from here too.
export type { AttemptState, CorrectionState, ModelCallState, RunState } from './runState';

export function emptyRunState(runId: string): RunState {
  return {
    runId,
    ticketId: '',
    ticketPath: '',
    status: 'running',
    testFiles: [],
    ops: [],
    attempts: [],
    corrections: [],
    gates: [],
    repairs: [],
    modelCalls: [],
    usage: { calls: 0, inputTokens: 0, outputTokens: 0, costUsd: 0, retries: 0 },
    workspace: '',
    resumes: [],
    uncommitted: [],
    rolledBack: false,
    tampered: [],
    notJudged: [],
    userEdits: [],
    userSaves: [],
    eventCount: 0,
  };
}

function attempt(state: RunState, n: number): AttemptState {
  let a = state.attempts.find((x) => x.n === n);
  if (!a) {
    a = { n, files: [], written: [], refused: [], rejectedDiagnoses: [], rungs: [], anomalies: [], tampered: [], status: 'pending' };
    state.attempts.push(a);
    state.attempts.sort((x, y) => x.n - y.n);
  }
  return a;
}

type Handlers = { [T in RunEvent['type']]: (s: RunState, e: EventOf<T>) => void };

/**
 * One handler per event type; `satisfies` makes a new event type without a handler a
 * compile error, so no view silently ignores a fact of the run.
 */
const handlers = {
  'run.started': (s, e) => {
    s.ticketId = e.ticketId;
    s.ticketPath = e.ticketPath;
    s.model = e.model;
    s.budget = e.budget;
    s.recovery = e.recovery;
    s.sandbox = e.sandbox;
    s.startedAt = e.ts;
    s.workspace = e.workspace;
    s.owner = e.owner;
    s.plan = e.plan;
  },
  'run.resumed': (s, e) => {
    s.status = 'running';
    s.finished = undefined;
    s.resumes.push({ from: e.from, reason: e.reason });
    if (e.owner) s.owner = e.owner;
    // The step cut short starts again: the interrupted try of it is in the log, not in the view.
    // From 'tests', that step is the gates of attempt `e.attempt`, which passed and stands.
    const from = e.attempt;
    if (from === undefined) return;
    if (e.from !== 'tests') s.attempts = s.attempts.filter((a) => a.n < from);
    else {
      s.attempts = s.attempts.filter((a) => a.n <= from);
      const step = s.gateStepFrom;
      if (step) {
        s.gates = s.gates.slice(0, step.gates);
        s.repairs = s.repairs.slice(0, step.repairs);
      }
    }
  },
  'userSaves.kept': (s, e) => {
    for (const f of e.files) if (!s.userSaves.includes(f.path)) s.userSaves.push(f.path);
  },
  'uncommitted.detected': (s, e) => {
    s.uncommitted = e.files;
  },
  'manifest.built': (s, e) => {
    s.manifest = e.manifest;
    s.manifestHash = e.hash;
  },
  'tests.materialized': (s, e) => {
    s.testFiles = e.files;
    s.framework = e.framework;
  },
  // The case list is the checks' to read; the views show the event itself.
  'authored.listed': () => undefined,
  'op.applied': (s, e) => {
    s.ops.push({ index: e.index, op: e.op, ok: true });
  },
  'op.failed': (s, e) => {
    s.ops.push({ index: e.index, op: e.op, ok: false, reason: e.reason, suggestion: e.suggestion });
  },
  'ops.checked': (s, e) => {
    s.opsCheck = { checkedFiles: e.checkedFiles, diagnostics: e.diagnostics, introduced: e.introduced };
  },
  'coder.attempted': (s, e) => {
    const a = attempt(s, e.attempt);
    a.brief = e.brief;
    a.files = e.files;
  },
  'files.written': (s, e) => {
    if (e.attempt > 0) attempt(s, e.attempt).written.push(...e.files);
  },
  'write.refused': (s, e) => {
    attempt(s, e.attempt).refused.push({ path: e.path, reason: e.reason, detail: e.detail });
  },
  'edit.refused': (s, e) => {
    (attempt(s, e.attempt).editRefusals ??= []).push({ command: e.command, path: e.path, detail: e.detail });
  },
  // The record is the event itself (the run view's timeline shows it); no view counts it.
  'heldOut.withheld': () => undefined,
  'properties.seeded': (s, e) => {
    attempt(s, e.attempt).propertySeed = e.seed;
  },
  'heldOut.ran': (s, e) => {
    const a = attempt(s, e.attempt);
    a.heldOut = { status: e.result.status, passed: e.result.passed, failed: e.result.failed, criteria: e.criteria };
    if (e.result.status !== 'passed') a.status = 'failed';
  },
  'answer.cut': (s, e) => {
    (attempt(s, e.attempt).cuts ??= []).push({ outputTokens: e.outputTokens, final: e.final, detail: e.detail });
  },
  'oracle.tampered': (s, e) => {
    const files = e.files.map((f) => ({ path: f.path, at: e.at }));
    if (e.attempt > 0) {
      const a = attempt(s, e.attempt);
      a.tampered.push(...files);
      a.status = 'failed';
    } else s.tampered.push(...files);
  },
  'baseline.recorded': (s, e) => {
    s.baseline = {
      checkedFiles: e.checkedFiles,
      diagnostics: e.diagnostics,
      lint: e.lint,
      project: e.project,
      ...(e.projectReusedFrom ? { projectReusedFrom: e.projectReusedFrom } : {}),
    };
  },
  'check.parsed': (s, e) => {
    const a = attempt(s, e.attempt);
    a.parse = { ok: e.ok, problems: e.problems };
    if (!e.ok) a.status = 'failed';
  },
  'check.diagnosed': (s, e) => {
    const a = attempt(s, e.attempt);
    a.diagnostics = {
      ok: e.ok,
      checkedFiles: e.checkedFiles,
      diagnostics: e.diagnostics,
      preExisting: e.preExisting,
      durationMs: e.durationMs,
      checkedBy: e.checkedBy,
    };
    if (!e.ok) a.status = 'failed';
  },
  'userEdit.merged': (s, e) => {
    s.userEdits.push({ path: e.path, by: e.by, attempt: e.attempt, outcome: 'merged', conflicts: [] });
  },
  'userEdit.kept': (s, e) => {
    s.userEdits.push({ path: e.path, by: e.by, attempt: e.attempt, outcome: 'kept', conflicts: e.conflicts });
  },
  'check.autofixed': (s, e) => {
    attempt(s, e.attempt).autofix = { applied: e.applied, refused: e.refused };
  },
  'check.linted': (s, e) => {
    const a = attempt(s, e.attempt);
    a.lint = { status: e.status, problems: e.problems, preExisting: e.preExisting, detail: e.detail };
    if (e.status === 'failed') a.status = 'failed';
  },
  'projectTests.baseline': (s, e) => {
    s.projectTestsBaseline = {
      files: e.files,
      status: e.status,
      failing: e.failing,
      ...(e.reusedFrom ? { reusedFrom: e.reusedFrom } : {}),
    };
  },
  'projectTests.ran': (s, e) => {
    const a = attempt(s, e.attempt);
    a.projectTests = { files: e.files, result: e.result, newlyFailing: e.newlyFailing, preExisting: e.preExisting };
    if (e.newlyFailing.length) a.status = 'failed';
  },
  'tests.ran': (s, e) => {
    const a = attempt(s, e.attempt);
    a.tests = e.result;
    if (e.recheck) a.recheck = e.recheck;
    a.status = e.result.status === 'passed' && a.status !== 'failed' ? 'passed' : 'failed';
    if (a.status === 'passed') s.gateStepFrom = { gates: s.gates.length, repairs: s.repairs.length };
  },
  'debugger.diagnosed': (s, e) => {
    const a = attempt(s, e.attempt);
    a.diagnosis = e.diagnosis;
    a.rejectedDiagnoses = e.rejected;
  },
  'router.routed': (s, e) => {
    attempt(s, e.attempt).route = {
      claimed: e.claimed,
      route: e.route,
      verdict: e.guard.verdict,
      fact: e.guard.fact,
      detail: e.guard.detail,
    };
  },
  'correction.requested': (s, e) => {
    s.corrections.push({ request: e.request, status: 'pending', preview: e.preview });
  },
  'correction.accepted': (s, e) => {
    const c = s.corrections.find((x) => x.request.id === e.requestId);
    if (c) Object.assign(c, { status: 'accepted', by: e.by });
  },
  'correction.rejected': (s, e) => {
    const c = s.corrections.find((x) => x.request.id === e.requestId);
    if (c) Object.assign(c, { status: 'rejected', reason: e.reason, by: e.by });
  },
  'gate.ran': (s, e) => {
    s.gates.push({
      gate: e.gate,
      status: e.status,
      detail: e.detail,
      repaired: e.repaired,
      afterRepairOf: e.afterRepairOf,
      durationMs: e.durationMs,
      evidence: e.evidence,
      optional: e.optional,
    });
    s.notJudged = s.notJudged.filter((x) => x.gate !== e.gate);
    if (e.status === 'error' && e.optional) s.notJudged.push({ gate: e.gate, detail: e.detail });
  },
  'repair.attempted': (s, e) => {
    s.repairs.push({
      gate: e.gate,
      ok: e.ok,
      detail: e.detail,
      files: e.files,
      stage: e.stage,
      error: e.error,
      complaints: e.complaints,
      regression: e.regression,
      reverted: e.reverted,
    });
  },
  'rung.fired': (s, e) => {
    attempt(s, e.attempt).rungs.push({ rung: e.rung, reason: e.reason, trigger: e.trigger, thinking: e.thinking });
  },
  'anomaly.detected': (s, e) => {
    attempt(s, e.attempt).anomalies.push({ role: e.role, score: e.score, urgent: e.urgent, signals: e.signals });
  },
  'model.called': (s, e) => {
    s.modelCalls.push({
      role: e.role,
      attempt: e.attempt,
      model: e.model,
      ok: e.ok,
      error: e.error,
      inputTokens: e.inputTokens,
      outputTokens: e.outputTokens,
      costUsd: e.costUsd,
      latencyMs: e.latencyMs,
      retries: e.retries,
      ...(e.prompt ? { prompt: e.prompt } : {}),
      ...(e.answer ? { answer: e.answer } : {}),
      ...(e.adaptations?.length ? { adaptations: e.adaptations } : {}),
    });
    s.usage.calls++;
    s.usage.inputTokens += e.inputTokens;
    s.usage.outputTokens += e.outputTokens;
    s.usage.costUsd += e.costUsd;
    s.usage.retries += e.retries;
  },
  // Only rollback reads it, from the events: no view shows modes.
  'file.baselined': () => undefined,
  'run.rolledBack': (s) => {
    s.rolledBack = true;
  },
  'run.finished': (s, e) => {
    s.status = e.outcome;
    s.finished = { outcome: e.outcome, reason: e.reason, attempts: e.attempts };
  },
} satisfies Handlers;

/**
 * What judged the change, from the last attempt's runs: derived after every event, so that an
 * attempt that starts (or a resume that drops one) leaves no count of an earlier one behind.
 */
function judgedBy(state: RunState): RunState['judgedBy'] {
  const a = state.attempts[state.attempts.length - 1];
  if (!a?.tests) return undefined;
  const h = a.heldOut;
  return {
    attempt: a.n,
    visible: a.tests.passed + a.tests.failed,
    heldOut: h ? h.passed + h.failed : 0,
    propertyRuns: propertyRuns(state, a.tests.status === 'passed', h?.status === 'passed'),
    heldOutFailed: h?.failed ?? 0,
    heldOutCriteria: h?.criteria ?? [],
  };
}

/**
 * The generated inputs the manifest's properties were run on: each property's `runs`, for the
 * visible plan, and for the held-out one when it passed. A failed property stops at its
 * counterexample, so only a run that passed is counted whole.
 */
function propertyRuns(state: RunState, visiblePassed: boolean, heldOutRan: boolean): number {
  const m = state.manifest;
  if (!m || !visiblePassed) return 0;
  const runs = (files: typeof m.testPlan.files) =>
    files.flatMap((f) => f.cases.flatMap((c) => c.expect)).reduce((n, x) => n + (x.kind === 'property' ? x.runs : 0), 0);
  return runs(m.testPlan.files) + (heldOutRan ? runs(m.heldOut.files) : 0);
}

/** Folds one event into the state (mutating it): the incremental form for live views. */
export function applyEvent(state: RunState, event: RunEvent): RunState {
  (handlers[event.type] as (s: RunState, e: RunEvent) => void)(state, event);
  const judged = judgedBy(state);
  if (judged) state.judgedBy = judged;
  else delete state.judgedBy;
  state.eventCount++;
  state.updatedAt = event.ts;
  return state;
}

/** The run state: a pure reduction of its events. */
export function reduceRun(runId: string, events: readonly RunEvent[]): RunState {
  return events.reduce(applyEvent, emptyRunState(runId));
}

/** The pending correction request, if the run waits on the operator. */
export function pendingCorrection(state: RunState): CorrectionState | undefined {
  return state.corrections.find((c) => c.status === 'pending');
}
