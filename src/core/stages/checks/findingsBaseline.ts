import { z } from 'zod';
import { CancelledError, isAbort } from '../../errors';
import { CodeDiagnostic, type LintProblem } from '../../schema/checks';
import type { EventOf } from '../../schema/events';
import type { RunContext } from '../common/context';
import { packageOf, workspacePackages } from '../common/workspacePackages';
import { introduced } from '../ops/introduced';
import { measureAfresh, type BaselinePart, type MeasureBaseline, type Measured } from './keptBaselines';

/**
 * The project's findings before the run's first write: what the run did not introduce. A
 * check or a gate counts only the findings beyond these, so an error that was already in the
 * project (in an importer of the changed module, or anywhere the project-wide check looks)
 * neither fails an attempt nor becomes evidence for a route.
 */
export type FindingsBaseline = Omit<EventOf<'baseline.recorded'>, 'runId' | 'seq' | 'ts' | 'type'>;

/**
 * A finding's identity across edits: its file, its code or rule, and its message with the
 * whitespace collapsed. Not its line: an edit above an old error moves it without making it new.
 */
const normalized = (message: string): string => message.replace(/\s+/g, ' ').trim();
const diagnosticKey = (d: CodeDiagnostic): string => `${d.file}\0${d.code}\0${normalized(d.message)}`;
const lintKey = (p: LintProblem): string => `${p.file}\0${p.rule ?? ''}\0${normalized(p.message)}`;

/** Splits findings into the ones the run introduced and the ones that were there before it (as a multiset). */
function split<T>(base: readonly T[], now: readonly T[], key: (item: T) => string): { introduced: T[]; preExisting: T[] } {
  const fresh = new Set(introduced(base, now, key));
  return { introduced: now.filter((x) => fresh.has(x)), preExisting: now.filter((x) => !fresh.has(x)) };
}

export const splitDiagnostics = (base: readonly CodeDiagnostic[], now: readonly CodeDiagnostic[]) => split(base, now, diagnosticKey);
export const splitLint = (base: readonly LintProblem[], now: readonly LintProblem[]) => split(base, now, lintKey);

const errors = <T extends { category?: string; severity?: string }>(xs: readonly T[]): T[] =>
  xs.filter((x) => (x.category ?? x.severity) === 'error');

/**
 * The baseline before the run's first write: the diagnostics and lint findings of the files in
 * scope and of the files that import them (what the per-attempt checks will look at), and, when
 * the type-check gate will run, the whole project's type errors (one full check, or an earlier
 * run's, when `measure` finds one kept). Measured, not recorded: `recordBaselines` writes it.
 */
export async function measureBaseline(ctx: RunContext, measure: MeasureBaseline = measureAfresh): Promise<FindingsBaseline> {
  const { deps, manifest, signal } = ctx;
  const t = deps.clock.now().getTime();
  // The project-wide check runs in a process of its own: the scope's checks go on beside it, so
  // the baseline costs about one full type-check of wall time, not one plus the scope's.
  const projectCheck = projectBaseline(ctx, measure);
  // Settled below; an early throw must not leave it unhandled.
  projectCheck.catch(() => undefined);
  const existing = manifest.scope.write.filter((f) => f.exists).map((f) => f.path);
  const code = existing.filter((f) => /\.[cm]?[jt]sx?$/.test(f));
  let diagnostics: CodeDiagnostic[] = [];
  let checkedFiles: string[] = [];
  if (deps.diagnostics && code.length) {
    const r = await deps.diagnostics.check(code, signal);
    diagnostics = errors(r.diagnostics);
    checkedFiles = r.checkedFiles;
  }
  let lint: LintProblem[] = [];
  if (deps.lint && code.length) {
    const r = await deps.lint.lint([...new Set([...code, ...checkedFiles.filter((f) => /\.[cm]?[jt]sx?$/.test(f))])], signal);
    lint = r.status === 'failed' || r.status === 'passed' ? errors(r.problems) : [];
  }
  const project = await projectCheck;
  // The rendered tests are rewritten by this run: a leftover file's old errors are not the project's.
  const rendered = new Set(manifest.testFiles);
  const notRendered = <T extends { file: string }>(xs: T[] | undefined) => xs?.filter((x) => !rendered.has(x.file));
  return {
    checkedFiles,
    diagnostics: notRendered(diagnostics)!,
    lint: notRendered(lint)!,
    project: notRendered(project?.value ?? undefined),
    ...(project?.value && project.reusedFrom ? { projectReusedFrom: project.reusedFrom } : {}),
    durationMs: deps.clock.now().getTime() - t,
  };
}

/**
 * What the project-wide type-check covers: the paths the ticket may write. The baseline and the
 * gate ask for the same, so an error is compared with the same compiler options it had before.
 */
export const typecheckScope = (ctx: Pick<RunContext, 'manifest'>): string[] => ctx.manifest.scope.write.map((f) => f.path);

/**
 * The whole project's type errors, when the type-check gate will run (undefined when it will not;
 * null when its checker could not run). The check reads the whole project, whatever the scope,
 * but for the packages of an npm-workspaces monorepo it picks by the scope: those are its question.
 */
async function projectBaseline(ctx: RunContext, measure: MeasureBaseline): Promise<Measured<CodeDiagnostic[] | null> | undefined> {
  const { deps, signal } = ctx;
  const typecheck = deps.gates?.enabled.includes('typecheck') ? deps.gates.typecheck : undefined;
  if (!typecheck) return undefined;
  const scope = typecheckScope(ctx);
  const packages = await workspacePackages(deps.workspace);
  const part: BaselinePart<CodeDiagnostic[] | null> = {
    name: 'typecheck',
    question: { packages: [...new Set(scope.map((p) => packageOf(packages, p)?.dir ?? ''))].sort() },
    schema: z.array(CodeDiagnostic).nullable(),
    keepable: (v) => v !== null,
  };
  return measure(part, async () => {
    // A checker that could not run leaves no baseline (nothing is forgiven): the gate reports its own error.
    const r = await typecheck.check(signal, scope).catch((err: unknown) => {
      if (isAbort(err) || err instanceof CancelledError) throw err;
      return undefined;
    });
    return r && (r.status === 'passed' || r.status === 'failed') ? errors(r.diagnostics) : null;
  });
}

/**
 * Taken from an earlier run, the project-wide check loaded nothing yet: the checker may load it
 * now, while the Coder writes, rather than beside the first attempt's tests. Asked once the
 * baseline is recorded, so that it never slows the language service's first look, which the
 * first write waits for.
 */
export function warmTypecheck(ctx: RunContext, baseline: FindingsBaseline | undefined): void {
  const typecheck = ctx.deps.gates?.enabled.includes('typecheck') ? ctx.deps.gates.typecheck : undefined;
  if (!typecheck?.warm || !baseline?.projectReusedFrom) return;
  try {
    typecheck.warm(ctx.signal, typecheckScope(ctx));
  } catch {
    // a hint: nothing was started
  }
}

/** The run's baseline, from its log (a resumed run keeps the one its first segment took). */
export function baselineFromLog(ctx: Pick<RunContext, 'log'>): FindingsBaseline | undefined {
  const e = ctx.log.events.find((x): x is EventOf<'baseline.recorded'> => x.type === 'baseline.recorded');
  if (!e) return undefined;
  const { checkedFiles, diagnostics, lint, project, projectReusedFrom, durationMs } = e;
  return { checkedFiles, diagnostics, lint, project, ...(projectReusedFrom ? { projectReusedFrom } : {}), durationMs };
}
