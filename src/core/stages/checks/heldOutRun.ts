import type { TestCaseResult, TestRunResult } from '../../schema/checks';
import type { TestPlan } from '../../schema/testPlan';
import type { RunContext } from '../common/context';
import { materialize } from '../materializer';
import { normalizeRelPath } from '../../schema/paths';
import { counted, guardedTestRun, runOracleTests } from './oracle';
import type { TamperedFile } from '../common/oraclePins';
import { casesNotPassed, reportedFile, type PlannedCase } from './plannedCases';
import { expectedCases, heldOutAuthored } from './authoredCases';
import type { FailureEvidence } from '../common/evidence';

/**
 * Generalize's command: the held-out cases judge in the same runner command as the visible
 * ones (one command, not two), under the same rules: rendered (or, for an authored one, written
 * from the bytes the log recorded) and pinned for that command only, the oracle checked around
 * it, every planned case reported. The held-out file is on disk only while it judges, and then
 * deleted and unpinned, so nothing the Coder's code runs later (`run_tests`, a later attempt's
 * run) finds it.
 *
 * That command's words never reach the Coder when its visible cases fail: the code under test
 * ran beside the held-out file and could have put its text into a failure message, spelled any
 * way it likes. So a visible failure is run again, the visible cases alone, and the Coder and
 * the Debugger read that run. Only when the visible cases pass does the held-out result count,
 * and then the Coder is told only which criterion it was too narrow for.
 */

export interface JudgingRun {
  /** The visible cases' result: what the Coder and the Debugger may read. */
  result: TestRunResult;
  tampered: TamperedFile[];
  /** The held-out cases' result, once the visible ones pass; the log's, never the Coder's. */
  heldOut?: TestRunResult;
}

export async function runJudgingTests(ctx: RunContext, attempt: number): Promise<JudgingRun> {
  const { deps, manifest } = ctx;
  const plan: TestPlan = { files: manifest.heldOut.files };
  const authored = manifest.heldOut.authored ?? [];
  if (!plan.files.length && !authored.length) return runOracleTests(ctx, attempt);
  const rendered = [
    ...materialize(plan, manifest.runner.framework, { language: manifest.testLanguage, moduleKind: manifest.moduleKind }),
    ...(await heldOutAuthored(ctx)),
  ];
  const heldFiles = rendered.map((f) => f.path).filter((p) => !authored.includes(p));
  let run: Awaited<ReturnType<typeof guardedTestRun>>;
  try {
    for (const f of rendered) {
      await deps.workspace.writeFile(f.path, f.content);
      ctx.oracle?.pin(f.path, f.content);
    }
    run = await guardedTestRun(ctx, attempt, [...manifest.testFiles, ...heldFiles, ...authored]);
  } finally {
    for (const f of rendered) {
      ctx.oracle?.unpin(f.path);
      await deps.workspace.deleteFile(f.path);
    }
  }
  const heldCases = expectedCases(ctx, 'heldOut');
  const split = splitHeldOut(run.ran, [...heldFiles, ...authored], heldCases);
  const visible = counted(split.visible, run.tampered, expectedCases(ctx, 'visible'));
  const heldOut = counted(split.heldOut, run.tampered, heldCases);
  if (visible.status === 'passed') return { result: visible, tampered: run.tampered, heldOut };
  const alone = await runOracleTests(ctx, attempt);
  // Passing alone, the visible cases failed only beside the held-out file: the held-out result (never passed) says why.
  return { result: alone.result, tampered: [...run.tampered, ...alone.tampered], ...(alone.result.status === 'passed' ? { heldOut } : {}) };
}

/**
 * The held-out cases' verdict on an attempt whose visible cases passed, in the log
 * (`heldOut.ran`): undefined when they pass (or the ticket holds none out), else the criteria it
 * was too narrow for. That, the criterion's id and text, is all the Coder is told; held-out
 * cases with no result judged nothing, and fail closed.
 */
export async function judgeHeldOut(
  ctx: RunContext,
  attempt: number,
  result: TestRunResult | undefined,
): Promise<FailureEvidence['tooNarrow']> {
  if (!result) return ctx.manifest.heldOut.files.length || ctx.manifest.heldOut.authored?.length ? [{}] : undefined;
  const failed = failedCriteria(ctx, result);
  await ctx.log.emit({ type: 'heldOut.ran', attempt, result, criteria: failed });
  if (result.status === 'passed') return undefined;
  return failed.length ? failed.map((id) => ({ criterion: id, text: ctx.manifest.acceptance.find((a) => a.id === id)?.text })) : [{}];
}

/** The criteria of the held-out cases a run did not show passing, in the plan's order. */
function failedCriteria(ctx: RunContext, result: TestRunResult): string[] {
  const out: string[] = [];
  for (const f of ctx.manifest.heldOut.files) {
    for (const c of f.cases) {
      const failed = casesNotPassed({ files: [{ ...f, cases: [c] }] }, result).length > 0;
      if (failed && c.criterion !== undefined && !out.includes(c.criterion)) out.push(c.criterion);
    }
  }
  return out;
}

/**
 * One command's result, as two: the visible cases and the held-out ones, by the file each was
 * reported from (by its expected name when the runner names no file). The visible cases pass
 * when the command passed, or failed only by held-out cases failing. The held-out result keeps
 * the command's status: it passes only when the whole command did, so the two never pass
 * between them unless the runner said passed.
 */
export function splitHeldOut(
  ran: TestRunResult,
  heldFiles: readonly string[],
  heldCases: readonly PlannedCase[],
): { visible: TestRunResult; heldOut: TestRunResult } {
  const files = new Set(heldFiles.map(normalizeRelPath));
  const names = new Set(heldCases.flatMap((p) => [p.name, p.mochaName]));
  const isHeld = (c: TestCaseResult): boolean => (c.file === undefined ? names.has(c.name) : files.has(reportedFile(c.file)));
  const held = ran.cases.filter(isHeld);
  const shown = ran.cases.filter((c) => !isHeld(c));
  const onlyHeldFailed = ran.status === 'failed' && held.some((c) => c.status === 'failed') && !shown.some((c) => c.status === 'failed');
  return {
    visible: { ...ran, ...counts(shown), status: ran.status === 'passed' || onlyHeldFailed ? 'passed' : ran.status },
    heldOut: { ...ran, ...counts(held) },
  };
}

function counts(cases: TestCaseResult[]): Pick<TestRunResult, 'cases' | 'passed' | 'failed' | 'skipped'> {
  const n = (s: TestCaseResult['status']) => cases.filter((c) => c.status === s).length;
  return { cases, passed: n('passed'), failed: n('failed'), skipped: n('skipped') };
}
