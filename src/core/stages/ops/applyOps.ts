import type { OpEdit, OpFix, OpResult, OpScope } from '../../ports/ops';
import type { CodeDiagnostic } from '../../schema/checks';
import type { CorrectionRequest, Proposal } from '../../schema/correction';
import type { FileRef, RunEvent } from '../../schema/events';
import type { TicketOp } from '../../schema/ticket';
import { type RunContext } from '../common/context';
import { RunStop } from '../../recovery/runStop';
import { emitCorrection, nextCorrectionId } from '../proposals/correctionRequests';
import { normalizeRelPath } from '../../schema/paths';
import { parseTicket } from '../../ticket/ticketLoader';
import { readTicketData } from '../../ticket/ticketFormat';
import { introduced } from './introduced';
import { stopOnKeptEdits, writeOverUserEdits } from '../common/userEdits';

type OpFailure = Extract<OpResult, { ok: false }>;

/** An op's identity in a run's log, whatever order its keys were written in. */
export function opKey(op: TicketOp): string {
  return JSON.stringify(op, Object.keys(op).sort());
}

/**
 * The manifest's ops that the log does not record as applied. A resumed run applies only
 * these: an applied op is never applied again over what the Coder has written since.
 */
export function pendingOps(ops: readonly TicketOp[], events: readonly RunEvent[]): { index: number; op: TicketOp }[] {
  const applied = new Set(events.flatMap((e) => (e.type === 'op.applied' ? [opKey(e.op)] : [])));
  return ops.map((op, index) => ({ index, op })).filter((p) => !applied.has(opKey(p.op)));
}

/**
 * Starts the ops' language service on its program while the baseline runs, for a ticket with ops
 * still to apply: its cold start (about two seconds on the blog fixture) otherwise comes after the
 * baseline, with a core idle for part of it. Nothing waits on it, and a failure here is the first
 * op's to meet and report.
 */
export function warmOps(ctx: RunContext): void {
  if (!ctx.deps.ops?.warm || !pendingOps(ctx.manifest.ops, ctx.log.events).length) return;
  void ctx.deps.ops.warm(ctx.signal).catch(() => undefined);
}

/**
 * The pre-Coder ops stage, between the rendered tests and the first Coder attempt. Each op
 * that applies is written and recorded (`files.written` by 'op', then `op.applied`). The
 * first op that fails stops the run with an op correction request: ops are never dropped.
 *
 * After the ops, the diagnostics check compares the touched files (and their importers)
 * with how they were before. Decision: an error the ops brought into a file in scope.write
 * (a new required field that existing objects lack) is expected, since finishing the change
 * is the Coder's job; it is recorded in `ops.checked` and the run goes on. An error brought
 * into a file outside the scope is one the Coder cannot fix, so it stops the run now with a
 * scope addition instead of spending attempts on it.
 */
export async function applyOps(ctx: RunContext): Promise<void> {
  const pending = pendingOps(ctx.manifest.ops, ctx.log.events);
  if (!pending.length) return;
  const { deps, manifest, signal } = ctx;
  const scope: OpScope = {
    write: manifest.scope.write.map((f) => f.path),
    read: manifest.scope.read.map((f) => f.path),
    tests: manifest.testFiles,
  };
  const targets = [];
  // Only files that exist have errors to compare: a declared new file has none before.
  for (const p of pending) {
    const file = workspacePath(p.op.file);
    if (file !== undefined && (await deps.workspace.exists(file))) targets.push(file);
  }
  const baseline = deps.diagnostics && (await deps.diagnostics.check([...new Set([...targets, ...scope.tests])], signal));
  const touched = new Set<string>();
  for (const { index, op } of pending) {
    if (signal.aborted) throw new RunStop({ kind: 'cancelled' }, 'cancelled');
    const result = await applyOne(ctx, op, scope);
    if (!result.ok) return failOp(ctx, index, op, result);
    await ctx.log.emit({ type: 'op.applied', index, op, files: await writeEdits(ctx, result.edits) });
    for (const e of result.edits) touched.add(e.path);
  }
  if (baseline && touched.size) await checkOps(ctx, [...touched], baseline.diagnostics, scope);
}

function workspacePath(path: string): string | undefined {
  try {
    return normalizeRelPath(path);
  } catch {
    return undefined;
  }
}

async function applyOne(ctx: RunContext, op: TicketOp, scope: OpScope): Promise<OpResult> {
  const file = workspacePath(op.file);
  if (file === undefined)
    return {
      ok: false,
      reason: `"${op.file}" is not a path inside the workspace`,
      suggestion: "correct the op's file: a workspace-relative path",
    };
  if (!scope.write.includes(file)) {
    return {
      ok: false,
      reason: `${file} is not in scope.write, and an op changes only files in scope`,
      suggestion: `add ${file} to scope.write`,
      proposal: { kind: 'scopeAddition', paths: [file] },
    };
  }
  if (!ctx.deps.ops) {
    return {
      ok: false,
      reason: 'this host has no ops adapter',
      suggestion: 'run the ticket with the ticket-runner CLI or the extension, or make the change by hand and drop the op',
    };
  }
  const result = await ctx.deps.ops.apply({ ...op, file }, scope, ctx.signal);
  // The adapter checks the scope itself; this is the pipeline's own guard, as the write gate is for the Coder.
  const stray = result.ok ? result.edits.map((e) => e.path).filter((p) => !scope.write.includes(p)) : [];
  if (stray.length) {
    return {
      ok: false,
      reason: `the op would change ${stray.join(', ')}, outside scope.write`,
      suggestion: `add ${stray.join(', ')} to scope.write`,
      proposal: { kind: 'scopeAddition', paths: stray },
    };
  }
  return result;
}

/** Writes an op's edits and records them; the blobs make the op undone by a rollback. */
async function writeEdits(ctx: RunContext, edits: readonly OpEdit[]): Promise<FileRef[]> {
  const { deps, log } = ctx;
  const written = [];
  const files: FileRef[] = [];
  const kept: string[] = [];
  for (const e of edits) {
    // A file an op creates (the `declare` op's new module) did not exist: a rollback deletes it.
    const existing = await deps.workspace.readFile(e.path);
    const current = existing ?? '';
    // A language service reads files without their byte-order mark; the file keeps it.
    const bom = current.startsWith('\uFEFF') ? '\uFEFF' : '';
    if (e.after === e.before && existing !== null) {
      files.push({ path: e.path, hash: await log.putBlob(bom + e.after) });
      continue;
    }
    // The adapter read the file a moment ago: a change since is the user's, merged or kept.
    const base = existing === null && e.before === '' ? null : bom + e.before;
    const result = await writeOverUserEdits(ctx, { path: e.path, content: bom + e.after, by: 'op', attempt: 0, base });
    if (result.kept) {
      kept.push(e.path);
      continue;
    }
    const after = await log.putBlob(result.content ?? '');
    written.push({ path: e.path, before: existing === null ? null : await log.putBlob(current), after });
    files.push({ path: e.path, hash: after });
  }
  if (written.length) await log.emit({ type: 'files.written', attempt: 0, by: 'op', files: written });
  stopOnKeptEdits(kept);
  return files;
}

/**
 * Which errors are the same before and after the ops. In a file the ops did not edit nothing
 * moved, so an error at a place that had one already is not new, even when TypeScript now
 * words it differently (an import of a name that is still missing, say). In an edited file
 * the lines moved: the same code and message is the same error.
 */
const sameErrorKey = (edited: ReadonlySet<string>) => (d: CodeDiagnostic) =>
  edited.has(d.file) ? `${d.file}\0${d.code}\0${d.message}` : `${d.file}\0${d.line}:${d.column}`;
const errorsOf = (ds: readonly CodeDiagnostic[]) => ds.filter((d) => d.category === 'error');

async function checkOps(ctx: RunContext, touched: string[], before: readonly CodeDiagnostic[], scope: OpScope): Promise<void> {
  const { deps, log, signal } = ctx;
  const t = deps.clock.now().getTime();
  const after = await deps.diagnostics!.check([...new Set([...touched, ...scope.tests])], signal);
  const added = introduced(errorsOf(before), errorsOf(after.diagnostics), sameErrorKey(new Set(touched)));
  await log.emit({
    type: 'ops.checked',
    checkedFiles: after.checkedFiles,
    diagnostics: after.diagnostics,
    introduced: added,
    durationMs: deps.clock.now().getTime() - t,
  });
  // A rendered test that no longer type-checks is the router's to judge (test is wrong?), after an attempt.
  const outside = added.filter((d) => !scope.write.includes(d.file) && !scope.tests.includes(d.file));
  const first = outside[0];
  if (!first) return;
  const paths = [...new Set(outside.map((d) => d.file).filter((f) => workspacePath(f) === f))];
  const request: CorrectionRequest = {
    id: nextCorrectionId(ctx),
    target: 'op',
    fact: {
      kind: 'outsideScopeDiagnostic',
      detail: `the ops brought ${outside.length} error(s) into files outside scope.write, which the Coder cannot fix: ${first.file}:${first.line} ${first.code}: ${first.message}`,
      file: first.file,
      line: first.line,
      code: first.code,
    },
    proposal: paths.length
      ? { kind: 'scopeAddition', paths }
      : { kind: 'none', why: 'the errors are outside the workspace; change the ops so that they keep those files valid' },
  };
  await emitCorrection(ctx, request);
  throw new RunStop({ kind: 'correctionRequested', requestId: request.id, route: 'manifest' }, 'needsOperator');
}

/**
 * Records a failed op and turns it into an op correction request, then stops the run. The
 * route is where the fix lands: the manifest's scope for a scope addition, else the ticket.
 */
async function failOp(ctx: RunContext, index: number, op: TicketOp, failure: OpFailure): Promise<never> {
  const { log } = ctx;
  await log.emit({ type: 'op.failed', index, op, reason: failure.reason, suggestion: failure.suggestion });
  const proposal = await proposalFor(ctx, index, failure.proposal, failure.suggestion);
  const request: CorrectionRequest = {
    id: nextCorrectionId(ctx),
    target: 'op',
    fact: {
      kind: 'opFailed',
      detail: `ops[${index}] ${op.op} failed: ${failure.reason}`,
      file: failure.at?.file ?? op.file,
      line: failure.at?.line,
    },
    proposal,
  };
  await emitCorrection(ctx, request);
  throw new RunStop(
    { kind: 'correctionRequested', requestId: request.id, route: proposal.kind === 'scopeAddition' ? 'manifest' : 'ticket' },
    'needsOperator',
  );
}

/** The adapter's fix as a proposal the operator can accept: a corrected op becomes a whole-ticket edit. */
async function proposalFor(ctx: RunContext, index: number, fix: OpFix | undefined, suggestion: string): Promise<Proposal> {
  if (fix?.kind === 'scopeAddition') return fix;
  if (fix?.kind === 'opEdit') {
    const text = await ctx.deps.workspace.readFile(ctx.ticketPath);
    try {
      const raw = readTicketData(ctx.ticketPath, text ?? '') as { ops?: unknown[] };
      if (Array.isArray(raw.ops) && index < raw.ops.length) {
        raw.ops[index] = fix.op;
        parseTicket(ctx.ticketPath, JSON.stringify(raw));
        return { kind: 'ticketEdit', ticket: raw, summary: fix.summary };
      }
    } catch {
      // The ticket changed under the run or the edit does not validate: the suggestion stands alone.
    }
  }
  return { kind: 'none', why: suggestion };
}
