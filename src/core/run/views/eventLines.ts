import type { RunEvent } from '../../schema/events';
import {
  describeSideEffects,
  describeUncommitted,
  describeUserEdit,
  describeUserSaves,
  modelInfoLabel,
  outcomeLine,
  type StopWords,
} from './report';
import { durationWords } from './time';
import { gateDetailWords } from './verdict';
import {
  deciderWords,
  gateWords,
  guardWords,
  opWords,
  QUICK_FIXES,
  RECORDED_SAMPLE,
  REUSED,
  routeWords,
  rungWords,
  whatIsWrong,
} from './words';

export const LINE_STATUSES = ['ok', 'failed', 'info', 'warning', 'needsOperator'] as const;
export type LineStatus = (typeof LINE_STATUSES)[number];

/** One event, in the words every view uses: the CLI's progress, the webview's timeline, the editor's notification. */
export interface EventLine {
  text: string;
  status: LineStatus;
  attempt?: number;
  /** Worth a glance while the run goes (the CLI's progress and the editor's notification show only these). */
  glance: boolean;
}

/** Where a resumed run went on from, as the editor's views say it. */
const RESUMED_FROM: Record<Extract<RunEvent, { type: 'run.resumed' }>['from'], string> = {
  manifest: 'with a new attempt of the Coder',
  coder: 'from the Coder',
  tests: 'from the tests, with the code as it was',
};

const firstLine = (text: string): string => text.split('\n', 1)[0] ?? '';

const line = (text: string, status: LineStatus, glance: boolean, attempt?: number): EventLine => ({
  text,
  status,
  glance,
  ...(attempt ? { attempt } : {}),
});

/**
 * The one formatter of run events. A view adds only its own framing (the CLI indents and
 * prefixes the attempt, the timeline shows the attempt in its own column); the words live here.
 * null: an event no view shows on its own (its facts show through the state). `o`: the editor's
 * views leave out correction ids (decided with a click there) and name gates by what they check.
 */
export function describeEvent(e: RunEvent, o: StopWords = {}): EventLine | null {
  const correction = (id: string) => (o.requestIds === false ? 'correction' : `correction ${id}`);
  const gate = (name: string) => (o.gateNames === false ? gateWords(name) : `gate ${name}`);
  switch (e.type) {
    case 'run.started':
      return line(
        `run ${e.runId}: ticket ${e.ticketId}, model: ${o.modelNames === false && e.model.scripted ? RECORDED_SAMPLE.toLowerCase() : modelInfoLabel(e.model)}`,
        'info',
        true,
      );
    case 'run.resumed':
      // Its reason names the request by id and kind, which the CLI's resolve takes and the editor's views leave out.
      return line(o.requestIds === false ? `the run went on ${RESUMED_FROM[e.from]}` : `resumed from ${e.from}: ${e.reason}`, 'info', true);
    case 'uncommitted.detected':
      return line(`warning: ${describeUncommitted(e.files)}`, 'warning', true);
    case 'manifest.built':
      return line(
        `manifest: ${e.manifest.scope.write.length} file(s) in scope, ${e.manifest.runner.framework} (${e.manifest.runner.detectedFrom})`,
        'ok',
        true,
      );
    case 'tests.materialized':
      return line(`tests rendered for ${e.framework}: ${e.files.map((f) => f.path).join(', ')}`, 'ok', true);
    case 'authored.listed': {
      const read = e.files.filter((f) => f.found === 'read').map((f) => f.path);
      const how = read.length ? ` (read from the text of ${read.join(', ')}, which does not load before the change)` : '';
      return line(
        `the tests you wrote: ${e.cases.length} case(s) in ${e.files.map((f) => f.path).join(', ')}${how}, each of which must pass`,
        'ok',
        true,
      );
    }
    case 'op.applied':
      return line(`the ticket's prepared edit ${e.index + 1} was made: ${opWords(e.op)}`, 'ok', true);
    case 'op.failed':
      return line(`the ticket's prepared edit ${e.index + 1} (${opWords(e.op)}) FAILED: ${e.reason}`, 'failed', true);
    case 'ops.checked':
      return line(
        `the prepared edits checked: ${e.introduced.length ? `${e.introduced.length} new error(s) for the Coder` : 'no new errors'} (${e.checkedFiles.length} file(s))`,
        e.introduced.length ? 'warning' : 'ok',
        true,
      );
    case 'baseline.recorded': {
      const old = e.diagnostics.length + (e.project?.length ?? 0) + e.lint.length;
      return line(
        `${old ? `before the run: ${old} error(s) already in the project, not counted` : 'before the run: no errors in the project'}${e.projectReusedFrom ? `; ${REUSED}` : ''}`,
        'info',
        old > 0 || e.projectReusedFrom !== undefined,
      );
    }
    case 'projectTests.baseline':
      return line(
        `the project's tests before the run: ${e.files.length} file(s)${e.failing.length ? `, ${e.failing.length} case(s) already failing, not counted` : ', all passing'}${e.reusedFrom ? `; ${REUSED}` : ''}`,
        'info',
        true,
      );
    case 'coder.attempted':
      return line(`the Coder answered with ${e.files.length} file(s)`, 'info', true, e.attempt);
    case 'userEdit.merged':
      return line(describeUserEdit({ ...e, outcome: 'merged' }), 'warning', true, e.attempt);
    case 'userEdit.kept':
      return line(describeUserEdit({ ...e, outcome: 'kept' }), 'failed', true, e.attempt);
    case 'userSaves.kept':
      return line(describeUserSaves(e.files.map((f) => f.path)), 'info', true);
    case 'write.refused':
      return e.reason === 'elided'
        ? line(
            `not written: ${e.path} left out code the ticket did not ask to touch (placeholder comments or vanished exports); the Coder was told`,
            'warning',
            true,
            e.attempt,
          )
        : line(`write REFUSED ${e.path} (${e.reason})`, 'warning', true, e.attempt);
    case 'edit.refused':
      return line(
        `an edit of ${e.path || 'a file'} was refused and the Coder was told why: ${firstLine(e.detail)}`,
        'info',
        true,
        e.attempt,
      );
    case 'heldOut.ran':
      return e.result.status === 'passed'
        ? line(`held-out cases passed (${e.result.passed}): the fix is not only as wide as the visible tests`, 'ok', true, e.attempt)
        : line(
            `held-out cases FAILED${e.criteria.length ? ` (${e.criteria.join(', ')})` : ''}: the fix is too narrow; the Coder is told only the criteria`,
            'failed',
            true,
            e.attempt,
          );
    case 'heldOut.withheld':
      return line(
        e.from === 'brief'
          ? "the Debugger's advice quoted a held-out case and was withheld from the Coder"
          : `${e.count} held-out text(s) taken out of the Coder's ${e.from === 'tool' ? 'tool results' : 'prompt'}`,
        'warning',
        true,
        e.attempt,
      );
    case 'answer.cut':
      return line(
        `the ${e.role}'s answer was cut off at the model's token limit (${e.outputTokens} tokens): its unfinished part was not written${e.final ? '' : '; it was asked to go on with small edits'}`,
        'warning',
        true,
        e.attempt,
      );
    case 'check.parsed':
      return line(e.ok ? 'parse: no syntax problems' : `${e.problems.length} syntax problem(s)`, e.ok ? 'ok' : 'failed', !e.ok, e.attempt);
    case 'check.autofixed':
      return line(
        `${e.applied.length} problem(s) fixed by ${QUICK_FIXES}, with no model call${e.refused.length ? `; ${e.refused.length} fix(es) not made` : ''}`,
        'ok',
        true,
        e.attempt,
      );
    case 'check.diagnosed':
      return line(
        `diagnostics ${e.ok ? 'clean' : `${e.diagnostics.filter((d) => d.category === 'error').length} error(s)`} (${e.checkedFiles.length} file(s), ${durationWords(e.durationMs)})`,
        e.ok ? 'ok' : 'failed',
        true,
        e.attempt,
      );
    case 'check.linted':
      return line(
        `lint: ${e.status === 'passed' ? 'no new problems' : e.status === 'skipped' ? 'not checked' : e.status === 'failed' ? `${e.problems.length} problem(s)` : 'could not run'}`,
        e.status === 'failed' || e.status === 'error' ? 'failed' : e.status === 'skipped' ? 'info' : 'ok',
        false,
        e.attempt,
      );
    case 'tests.ran': {
      const effects = describeSideEffects(e.result);
      return line(
        `tests ${e.result.status} (${e.result.passed} passed, ${e.result.failed} failed)${effects ? `; ${effects}` : ''}`,
        e.result.status === 'passed' ? 'ok' : 'failed',
        true,
        e.attempt,
      );
    }
    case 'projectTests.ran':
      return e.newlyFailing.length
        ? line(
            `${e.newlyFailing.length} existing test(s) that passed before now FAIL: ${e.newlyFailing.slice(0, 3).join('; ')}`,
            'failed',
            true,
            e.attempt,
          )
        : line(`the project's tests that import the change: no new failure`, 'ok', false, e.attempt);
    case 'oracle.tampered':
      return line(
        `ORACLE CHANGED (${e.at}): ${e.files.map((f) => f.path).join(', ')}; restored, and what it judged fails`,
        'failed',
        true,
        e.attempt,
      );
    case 'debugger.diagnosed':
      return line(
        e.diagnosis ? `the Debugger says ${whatIsWrong(e.diagnosis.kind)} is wrong: ${e.diagnosis.claim}` : 'no usable diagnosis',
        'warning',
        true,
        e.attempt,
      );
    case 'router.routed':
      return line(`sent ${routeWords(e.route)} (${guardWords(e.guard.verdict)})`, 'info', true, e.attempt);
    case 'correction.requested':
      return line(
        `${correction(e.request.id)}: ${whatIsWrong(e.request.target)} is wrong (${e.request.fact.detail})`,
        'needsOperator',
        true,
      );
    case 'correction.accepted':
      return line(`${correction(e.requestId)} accepted by ${deciderWords(e.by)}`, 'ok', true);
    case 'correction.rejected':
      return line(`${correction(e.requestId)} rejected by ${deciderWords(e.by)}: ${e.reason}`, 'failed', true);
    case 'rung.fired':
      return line(`${rungWords(e.rung)}: ${e.reason}`, 'warning', true, e.attempt);
    case 'anomaly.detected':
      return line(`anomaly in the ${e.role}'s answer (score ${e.score.toFixed(2)})`, e.urgent ? 'failed' : 'warning', false, e.attempt);
    case 'gate.ran': {
      const verdict =
        e.status === 'error'
          ? e.optional
            ? 'not judged (optional; it could not run)'
            : 'could not judge the change'
          : e.status === 'skipped' && o.gateNames === false
            ? 'not checked'
            : e.status;
      const status: LineStatus =
        e.status === 'passed' ? 'ok' : e.status === 'skipped' ? 'info' : e.status === 'error' && e.optional ? 'warning' : 'failed';
      return line(
        `${gate(e.gate)}: ${verdict}${e.afterRepairOf ? ` (after the repair for ${o.gateNames === false ? gateWords(e.afterRepairOf) : e.afterRepairOf})` : ''}: ${o.gateNames === false ? gateDetailWords(e) : e.detail}`,
        status,
        true,
      );
    }
    case 'repair.attempted':
      return line(
        `${o.gateNames === false ? `the repair for ${gateWords(e.gate)}` : `repair of ${e.gate}`}: ${e.ok ? 'ok' : `FAILED at ${e.stage ?? 'an unknown step'}`}: ${e.detail}`,
        e.ok ? 'ok' : 'failed',
        true,
      );
    case 'run.rolledBack':
      return line(`rolled back ${e.files.length} file(s)`, 'info', true);
    case 'run.finished':
      return line(
        `run ${e.runId}: ${outcomeLine(e, o)}`,
        e.outcome === 'passed' ? 'ok' : e.outcome === 'needsOperator' ? 'needsOperator' : 'failed',
        true,
      );
    default:
      return null;
  }
}
