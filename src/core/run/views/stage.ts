import { z } from 'zod';
import type { RunEvent } from '../../schema/events';
import type { RunState } from '../reducer';
import { roleWords } from './words';

/** What a live run is doing now, for the webview's progress line: a step, its attempt, its words. */
export const RunStage = z.object({
  step: z.enum(['preparing', 'coder', 'checking', 'testing', 'debugger', 'routing', 'reviewing', 'gates', 'waiting']),
  attempt: z.number().int().positive().optional(),
  label: z.string(),
});
export type RunStage = z.infer<typeof RunStage>;

const stage = (step: RunStage['step'], label: string, attempt?: number): RunStage => ({ step, label: attempt ? `Attempt ${attempt}: ${label}` : label, ...(attempt ? { attempt } : {}) });

/**
 * The step that follows the last event of the log: the log records what ended, so what runs now
 * is the next step. Null once the run finished. A pending correction waits for the operator
 * whatever came last.
 */
export function runStage(state: RunState, last: RunEvent | undefined): RunStage | null {
  if (!last || state.finished) return null;
  if (state.corrections.some((c) => c.status === 'pending')) return stage('waiting', 'Waiting for you: a correction to accept or reject');
  const current = state.attempts[state.attempts.length - 1];
  const inAttempt = current?.status === 'pending' ? current.n : undefined;
  const next = (current?.n ?? 0) + 1;
  switch (last.type) {
    case 'run.started':
    case 'run.resumed':
    case 'uncommitted.detected':
    case 'baseline.recorded':
    case 'projectTests.baseline':
      return stage('preparing', 'Building the manifest');
    case 'manifest.built':
      return stage('preparing', 'Rendering the tests');
    case 'tests.materialized':
    case 'op.applied':
    case 'op.failed':
    case 'ops.checked':
    case 'file.baselined':
      return inAttempt ? stage('checking', 'checking', inAttempt) : stage('preparing', 'Preparing the first attempt');
    case 'files.written':
      if (!last.attempt) return stage('preparing', 'Rendering the tests');
      return stage('checking', 'checking (parse, types, lint)', last.attempt);
    case 'answer.cut':
    case 'edit.refused':
      return stage('coder', 'the Coder is editing', last.attempt);
    case 'coder.attempted':
    case 'write.refused':
    case 'check.parsed':
    case 'check.diagnosed':
    case 'check.autofixed':
      return stage('checking', 'checking (parse, types, lint)', inAttempt ?? current?.n);
    case 'check.linted':
      return stage('testing', 'testing', inAttempt ?? current?.n);
    case 'tests.ran':
      if (last.result.status === 'passed') return stage('gates', "The project's own tests and the gates");
      return stage('debugger', 'the Debugger is diagnosing', last.attempt || undefined);
    case 'debugger.diagnosed':
      return stage('routing', 'routing the fix', last.attempt || undefined);
    case 'router.routed':
      return last.route === 'code' ? stage('coder', 'the Coder is writing', next) : stage('routing', 'routing the fix', last.attempt || undefined);
    case 'model.called':
      // A tool call or a cut answer: the Coder's turn goes on.
      if (last.role === 'coder' && (last.stopReason === 'toolUse' || last.stopReason === 'maxTokens')) return stage('coder', 'the Coder is editing', last.attempt);
      if (last.role === 'coder') return stage('checking', 'checking', last.attempt || inAttempt);
      if (last.role === 'debugger') return stage('routing', 'routing the fix', last.attempt || undefined);
      return stage('reviewing', `${roleWords(last.role)} answered`);
    case 'rung.fired':
      return stage('coder', 'the Coder is writing', next);
    case 'projectTests.ran':
    case 'gate.ran':
    case 'repair.attempted':
      return stage('gates', 'Gates');
    case 'correction.accepted':
    case 'correction.rejected':
      return stage('coder', 'going on after your decision');
    default:
      return inAttempt ? stage('checking', 'checking', inAttempt) : stage('coder', 'the Coder is writing', next);
  }
}
