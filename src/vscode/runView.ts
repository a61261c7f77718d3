import type { RunState } from '../core/run/reducer';
import type { RunEvent } from '../core/schema/events';
import type { TimelineEntry } from '../shared/protocol';

/**
 * Host-side projections for the webview, pure functions of the log: the timeline, the
 * attempt file contents to diff, and where each quoted piece of evidence sits.
 */

export function timelineEntry(e: RunEvent): TimelineEntry | null {
  const base = { seq: e.seq, ts: e.ts, type: e.type };
  switch (e.type) {
    case 'run.started':
      return { ...base, status: 'info', label: `Run started: ${e.ticketId} with ${e.model.scripted ? 'the SCRIPTED model' : `${e.model.provider} ${e.model.model}`}` };
    case 'run.resumed':
      return { ...base, status: 'info', label: `Resumed from ${e.from}: ${e.reason}` };
    case 'manifest.built':
      return { ...base, status: 'ok', label: `Manifest built: ${e.manifest.scope.write.length} file(s) in scope` };
    case 'tests.materialized':
      return { ...base, status: 'ok', label: `Tests rendered for ${e.framework}: ${e.files.map((f) => f.path).join(', ')}` };
    case 'op.applied':
      return { ...base, status: 'ok', label: `Op ${e.index} (${e.op.op}) applied` };
    case 'op.failed':
      return { ...base, status: 'failed', label: `Op ${e.index} (${e.op.op}) failed: ${e.reason}` };
    case 'coder.attempted':
      return { ...base, attempt: e.attempt, status: 'info', label: `Attempt ${e.attempt}: the Coder answered with ${e.files.length} file(s)` };
    case 'write.refused':
      return { ...base, attempt: e.attempt, status: 'warning', label: `Write refused: ${e.path} (${e.reason})` };
    case 'check.parsed':
      return { ...base, attempt: e.attempt, status: e.ok ? 'ok' : 'failed', label: e.ok ? 'Parse: no syntax problems' : `Parse: ${e.problems.length} syntax problem(s)` };
    case 'check.diagnosed':
      return { ...base, attempt: e.attempt, status: e.ok ? 'ok' : 'failed', label: e.ok ? `Diagnostics: clean (${e.checkedFiles.length} file(s))` : `Diagnostics: ${e.diagnostics.length} problem(s)` };
    case 'check.autofixed':
      return { ...base, attempt: e.attempt, status: 'ok', label: `Structural fixes: ${e.applied.length} applied, ${e.refused.length} refused` };
    case 'check.linted':
      return { ...base, attempt: e.attempt, status: e.status === 'failed' ? 'failed' : 'ok', label: `Lint: ${e.status}` };
    case 'baseline.recorded': {
      const old = e.diagnostics.length + (e.project?.length ?? 0) + e.lint.length;
      return { ...base, status: 'info', label: old ? `Before the run: ${old} error(s) already in the project (not counted)` : 'Before the run: no errors in the project' };
    }
    case 'projectTests.baseline':
      return { ...base, status: 'info', label: `The project's tests before the run: ${e.files.length} file(s)${e.failing.length ? `, ${e.failing.length} case(s) already failing (not counted)` : ', all passing'}` };
    case 'projectTests.ran':
      return { ...base, attempt: e.attempt, status: e.newlyFailing.length ? 'failed' : 'ok', label: e.newlyFailing.length ? `The project's tests: ${e.newlyFailing.length} that passed before now fail` : `The project's tests that import the change: no new failure` };
    case 'oracle.tampered':
      return { ...base, attempt: e.attempt || undefined, status: 'failed', label: `The code changed ${e.files.map((f) => f.path).join(', ')}: restored, and this cannot pass` };
    case 'tests.ran':
      return { ...base, attempt: e.attempt, status: e.result.status === 'passed' ? 'ok' : 'failed', label: `Tests ${e.result.status}: ${e.result.passed} passed, ${e.result.failed} failed` };
    case 'debugger.diagnosed':
      return { ...base, attempt: e.attempt, status: 'warning', label: e.diagnosis ? `Debugger: the ${e.diagnosis.kind} is wrong` : 'Debugger: no usable diagnosis' };
    case 'router.routed':
      return { ...base, attempt: e.attempt, status: 'info', label: `Routed to ${e.route} (guard ${e.guard.verdict})` };
    case 'correction.requested':
      return { ...base, status: 'needsOperator', label: `Correction requested: the ${e.request.target} is wrong` };
    case 'correction.accepted':
      return { ...base, status: 'ok', label: `Correction accepted by ${e.by}` };
    case 'correction.rejected':
      return { ...base, status: 'failed', label: `Correction rejected by ${e.by}: ${e.reason}` };
    case 'gate.ran':
      return {
        ...base,
        status: e.status === 'passed' || e.status === 'skipped' ? 'ok' : e.status === 'error' && e.optional ? 'warning' : 'failed',
        label: `Gate ${e.gate}: ${e.status === 'error' ? (e.optional ? 'not judged (optional; it could not run)' : 'could not judge the change') : e.status}`,
      };
    case 'repair.attempted':
      return { ...base, status: e.ok ? 'ok' : 'failed', label: `Repair for ${e.gate}: ${e.ok ? 'done' : 'failed'}` };
    case 'rung.fired':
      return { ...base, attempt: e.attempt, status: 'warning', label: `Recovery rung ${e.rung}: ${e.reason}` };
    case 'anomaly.detected':
      return { ...base, attempt: e.attempt, status: e.urgent ? 'failed' : 'warning', label: `Anomaly in the ${e.role}'s answer (score ${e.score.toFixed(2)})` };
    case 'run.rolledBack':
      return { ...base, status: 'info', label: `Rolled back ${e.files.length} file(s)` };
    case 'run.finished':
      return { ...base, status: e.outcome === 'passed' ? 'ok' : e.outcome === 'needsOperator' ? 'needsOperator' : 'failed', label: `Run finished: ${e.outcome}` };
    case 'files.written':
    case 'model.called':
      return null;
    default:
      // An event type newer than this view: still on the timeline, by its name.
      return { ...base, status: 'info', label: (e as RunEvent).type };
  }
}

export function timelineOf(events: readonly RunEvent[]): TimelineEntry[] {
  return events.map(timelineEntry).filter((t): t is TimelineEntry => t !== null);
}

/** The blob hashes the webview needs for its diffs: each attempt's files and what they replaced. */
export function attemptBlobHashes(state: RunState): string[] {
  const hashes = new Set<string>();
  for (const a of state.attempts) {
    for (const f of a.files) hashes.add(f.hash);
    for (const w of a.written) if (w.before) hashes.add(w.before);
  }
  return [...hashes];
}

/** 1-based line of the first occurrence of `quote` in `text` (its first line, when it spans lines). */
export function lineOf(text: string, quote: string): number | null {
  let at = text.indexOf(quote);
  if (at < 0) {
    const first = quote.split('\n')[0]?.trim();
    if (!first) return null;
    at = text.indexOf(first);
    if (at < 0) return null;
  }
  return text.slice(0, at).split('\n').length;
}

/**
 * Where each diagnosis quote is, in the file it names: searched in that attempt's version of
 * the file when the run stored one, else in the workspace file as it is now.
 */
export async function quoteLocations(
  state: RunState,
  blob: (hash: string) => Promise<string | null>,
  readWorkspace: (path: string) => Promise<string | null>,
): Promise<{ attempt: number; index: number; path: string; line: number }[]> {
  const out: { attempt: number; index: number; path: string; line: number }[] = [];
  for (const a of state.attempts) {
    if (!a.diagnosis) continue;
    for (const [index, ev] of a.diagnosis.evidence.entries()) {
      const path = ev.file ?? (ev.source === 'testFile' && state.testFiles.length === 1 ? state.testFiles[0]!.path : undefined);
      if (!path) continue;
      const stored = a.files.find((f) => f.path === path) ?? state.testFiles.find((f) => f.path === path);
      const text = (stored ? await blob(stored.hash) : null) ?? (await readWorkspace(path));
      const line = text === null ? null : lineOf(text, ev.quote);
      out.push({ attempt: a.n, index, path, line: line ?? 1 });
    }
  }
  return out;
}
