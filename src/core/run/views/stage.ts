import { z } from 'zod';
import type { RunEvent, RunEventType } from '../../schema/events';
import { GATE_NAMES } from '../../schema/gates';
import type { RunState } from '../reducer';
import { gateWords } from './words';

/** What a live run is doing now, for the webview's progress line and the editor's notification: a step, its attempt, its words. */
export const RunStage = z.object({
  step: z.enum([
    'starting',
    'baseline',
    'rendering',
    'ops',
    'coder',
    'checking',
    'testing',
    'projectTests',
    'debugger',
    'routing',
    'gates',
    'repairing',
    'verdict',
    'waiting',
  ]),
  attempt: z.number().int().positive().optional(),
  label: z.string(),
});
export type RunStage = z.infer<typeof RunStage>;

const stage = (step: RunStage['step'], label: string, attempt?: number): RunStage => ({
  step,
  label: attempt ? `Attempt ${attempt}: ${label}` : label,
  ...(attempt ? { attempt } : {}),
});

/**
 * Events written inside a step that is already running (the model's calls, the writes, the
 * refused edits): they say nothing of which step runs, so the stage reads past them to the event
 * that ended the step before.
 */
const WITHIN_A_STEP: ReadonlySet<RunEventType> = new Set<RunEventType>([
  'model.called',
  'files.written',
  'file.baselined',
  'anomaly.detected',
  'answer.cut',
  'edit.refused',
  'write.refused',
  'userEdit.merged',
  'userEdit.kept',
  'userSaves.kept',
  'oracle.tampered',
  'check.autofixed',
  'uncommitted.detected',
]);

/** Whether an event is written inside a running step (it neither ends one nor starts one). */
export const withinAStep = (e: RunEvent): boolean => WITHIN_A_STEP.has(e.type);

/** The project as it was, before the run's first write: its type errors and its own tests, checked side by side. */
export const BEFORE_THE_RUN = 'Checking the project before the run (types and its own tests)';

/**
 * The step running now, one at a time. The log records what ended, so what runs is the step
 * after the last event that ended one, in the order `startRun` (src/core/loop/runTicket.ts),
 * the inner loop and the gates run them. Null once the run finished; a pending correction
 * waits for the operator whatever came last. `events`: the log so far; only its last event that
 * ended a step is read, so a host that follows a run may pass just that one.
 *
 * Two steps have no event that says they started, and are derived instead of adding one, so
 * the logs written before keep their live line: the project's own tests after the ticket's pass
 * run when the run took a baseline of them (`projectTests.baseline` names the tests that reach
 * the scope); and a gate starts when the one before it in GATE_NAMES ended (a gate that is not
 * enabled writes its `gate.ran` at once).
 */
export function runStage(state: RunState, events: readonly RunEvent[]): RunStage | null {
  const last = [...events].reverse().find((e) => !withinAStep(e));
  // An accepted correction goes on with the run that ended waiting for it: its resume comes next.
  if (last?.type === 'correction.accepted') return stage('starting', 'Going on after your decision');
  if (!events.length || state.finished) return null;
  if (state.corrections.some((c) => c.status === 'pending')) return stage('waiting', 'Waiting for you: a correction to accept or reject');
  const lastAttempt = state.attempts[state.attempts.length - 1]?.n ?? 0;
  if (!last) return stage('starting', 'Starting the run');
  switch (last.type) {
    case 'run.started':
      return stage('starting', 'Starting the run');
    case 'run.resumed':
      return stage('starting', 'Going on with the run');
    case 'manifest.built':
    case 'baseline.recorded':
    case 'projectTests.baseline':
      return beforeTheRunIsChecked(state) ? stage('rendering', 'Rendering the tests') : stage('baseline', BEFORE_THE_RUN);
    case 'tests.materialized':
    case 'op.applied':
    case 'ops.checked':
      return afterPreparing(state, last, lastAttempt);
    case 'op.failed':
      return stage('waiting', 'Waiting for you: a typed change of the ticket could not apply');
    case 'coder.attempted':
    case 'check.parsed':
    case 'check.diagnosed':
      if (last.type === 'check.parsed' && !last.ok) return stage('debugger', 'the Debugger is diagnosing', last.attempt);
      return stage('checking', 'checking the change (syntax, types, lint)', last.attempt);
    case 'check.linted':
      return stage('testing', "running the ticket's tests", last.attempt);
    case 'tests.ran':
      return afterTests(state, last);
    case 'projectTests.ran':
      return last.newlyFailing.length ? stage('debugger', 'the Debugger is diagnosing', last.attempt) : gateStage(0);
    case 'debugger.diagnosed':
      return stage('routing', 'choosing who fixes it', last.attempt || undefined);
    case 'router.routed':
      return last.route === 'code'
        ? stage('coder', 'the Coder is writing', last.attempt + 1)
        : stage('routing', 'choosing who fixes it', last.attempt || undefined);
    case 'rung.fired':
      return stage('coder', 'the Coder is writing', last.attempt);
    case 'gate.ran':
      if (last.afterRepairOf) return stage('repairing', `Gates: checking again after the repair for ${gateWords(last.afterRepairOf)}`);
      if (last.status === 'failed') return stage('repairing', `Gates: repairing what ${gateWords(last.gate)} found`);
      return gateStage(GATE_NAMES.indexOf(last.gate as (typeof GATE_NAMES)[number]) + 1);
    case 'repair.attempted':
      return gateStage(GATE_NAMES.indexOf(last.gate as (typeof GATE_NAMES)[number]) + 1);
    default:
      // A decision, a rollback or the end: the run is not doing a step of its own.
      return stage('verdict', 'Finishing the run');
  }
}

/** Whether the checks of the project before the run are done: both recorded, or the log has gone past them. */
function beforeTheRunIsChecked(state: RunState): boolean {
  // A run that rendered its tests before (a decision, a resume) does not check the project again.
  if (state.testFiles.length) return true;
  return state.baseline !== undefined && state.projectTestsBaseline !== undefined;
}

/** After the tests are rendered and the ticket's typed changes applied: the first attempt, or the tests again on a resumed run. */
function afterPreparing(state: RunState, last: RunEvent, lastAttempt: number): RunStage {
  const ops = state.manifest?.ops.length ?? 0;
  const applied = state.ops.filter((o) => o.ok).length;
  if (applied < ops) return stage('ops', "Applying the ticket's typed changes");
  if (last.type === 'op.applied') return stage('ops', "Checking the code after the ticket's typed changes");
  // Resumed from the tests (a corrected test plan accepted, or a run cut short after its attempt passed).
  if (state.resumes[state.resumes.length - 1]?.from === 'tests') return stage('testing', 'Running the tests again on the code as it is');
  return stage('coder', 'the Coder is writing', lastAttempt + 1);
}

function afterTests(state: RunState, e: Extract<RunEvent, { type: 'tests.ran' }>): RunStage {
  const passed = state.attempts.find((a) => a.n === e.attempt)?.status === 'passed';
  if (e.recheck) return passed ? gateStage(0) : stage('coder', 'the Coder is writing', e.attempt + 1);
  if (!passed) return stage('debugger', 'the Debugger is diagnosing', e.attempt);
  return state.projectTestsBaseline
    ? stage('projectTests', "running the project's own tests that use the change", e.attempt)
    : gateStage(0);
}

/** The gate at `index` of GATE_NAMES; past the last one, the verdict's last check. */
function gateStage(index: number): RunStage {
  const gate = GATE_NAMES[index];
  return gate ? stage('gates', `Gates: ${gateWords(gate)}`) : stage('verdict', 'Confirming the verdict');
}
