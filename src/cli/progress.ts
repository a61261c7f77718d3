import type { RunEvent } from '../core/schema/events';
import { describeStop, describeUncommitted, sandboxLabel } from '../core/run/report';

/** One short stderr line per event worth a glance while a run goes; null for the rest. */
export function progressLine(e: RunEvent): string | null {
  switch (e.type) {
    case 'run.started':
      return [`run ${e.runId}: ticket ${e.ticketId} with ${e.model.scripted ? 'the SCRIPTED model (test/demo replay)' : `${e.model.provider} ${e.model.model}`}`, e.sandbox && `  ${sandboxLabel(e.sandbox)}`].filter(Boolean).join('\n');
    case 'uncommitted.detected':
      return `  warning: ${describeUncommitted(e.files)}`;
    case 'manifest.built':
      return `  manifest: ${e.manifest.scope.write.length} file(s) in scope, ${e.manifest.runner.framework} (${e.manifest.runner.detectedFrom})`;
    case 'tests.materialized':
      return `  tests rendered: ${e.files.map((f) => f.path).join(', ')}`;
    case 'op.applied':
      return `  op ${e.index} ${e.op.op} applied`;
    case 'op.failed':
      return `  op ${e.index} ${e.op.op} FAILED: ${e.reason}`;
    case 'ops.checked':
      return `  ops checked: ${e.introduced.length ? `${e.introduced.length} new error(s) for the Coder` : 'no new errors'} (${e.checkedFiles.length} file(s))`;
    case 'coder.attempted':
      return `  attempt ${e.attempt}: Coder answered with ${e.files.length} file(s)`;
    case 'write.refused':
      return `  attempt ${e.attempt}: write REFUSED ${e.path} (${e.reason})`;
    case 'check.parsed':
      return e.ok ? null : `  attempt ${e.attempt}: ${e.problems.length} syntax problem(s)`;
    case 'check.autofixed':
      return `  attempt ${e.attempt}: ${e.applied.length} structural fix(es) applied with no model call`;
    case 'check.diagnosed':
      return `  attempt ${e.attempt}: diagnostics ${e.ok ? 'clean' : `${e.diagnostics.filter((d) => d.category === 'error').length} error(s)`} (${e.checkedFiles.length} file(s), ${Math.round(e.durationMs)} ms)`;
    case 'tests.ran':
      return `  attempt ${e.attempt}: tests ${e.result.status} (${e.result.passed} passed, ${e.result.failed} failed)`;
    case 'baseline.recorded': {
      const old = e.diagnostics.length + (e.project?.length ?? 0) + e.lint.length;
      return old ? `  before the run: ${old} error(s) already in the project, not counted` : null;
    }
    case 'projectTests.baseline':
      return `  the project's tests before the run: ${e.files.length} file(s)${e.failing.length ? `, ${e.failing.length} case(s) already failing, not counted` : ''}`;
    case 'projectTests.ran':
      return e.newlyFailing.length ? `  attempt ${e.attempt}: ${e.newlyFailing.length} existing test(s) that passed before now FAIL: ${e.newlyFailing.slice(0, 3).join('; ')}` : null;
    case 'oracle.tampered':
      return `  ORACLE CHANGED (${e.at}): ${e.files.map((f) => f.path).join(', ')}; restored, and what it judged fails`;
    case 'debugger.diagnosed':
      return e.diagnosis ? `  attempt ${e.attempt}: Debugger says ${e.diagnosis.kind} is wrong: ${e.diagnosis.claim}` : `  attempt ${e.attempt}: no usable diagnosis`;
    case 'router.routed':
      return `  attempt ${e.attempt}: routed to ${e.route} (guard ${e.guard.verdict})`;
    case 'correction.requested':
      return `  correction request ${e.request.id}: the ${e.request.target} is wrong (${e.request.fact.detail})`;
    case 'correction.accepted':
      return `  correction ${e.requestId} accepted`;
    case 'correction.rejected':
      return `  correction ${e.requestId} rejected: ${e.reason}`;
    case 'run.resumed':
      return `  resumed from ${e.from}: ${e.reason}`;
    case 'rung.fired':
      return `  attempt ${e.attempt}: recovery rung ${e.rung} fired: ${e.reason}`;
    case 'gate.ran':
      return `  gate ${e.gate}: ${e.status}${e.afterRepairOf ? ` (after the ${e.afterRepairOf} repair)` : ''}: ${e.detail}`;
    case 'repair.attempted':
      return `  repair of ${e.gate}: ${e.ok ? 'ok' : `FAILED at ${e.stage ?? 'an unknown step'}`}: ${e.detail}`;
    case 'run.finished':
      return `run ${e.runId}: ${e.outcome} (${describeStop(e.reason)})`;
    default:
      return null;
  }
}
