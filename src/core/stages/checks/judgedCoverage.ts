import type { TestRunRequest } from '../../ports/checks';
import type { CoverageResult, MeasuredRun } from '../../ports/gates';
import { errorMessage } from '../../errors';
import type { RunLog } from '../../run/runLog';
import type { TestRunResult } from '../../schema/checks';
import type { RunContext } from '../common/context';
import { isCodePath, isTestPath } from '../../schema/paths';
import { cumulativeChanges } from '../common/diff';

/**
 * Coverage measured by the test run that judges an attempt, so the coverage gate need not run
 * the ticket's tests a second time. Only where the runner measures at next to no cost as it
 * runs (V8's own counters: the port says which), and only while the code it measured is the
 * code: a write after that run (a gate's repair, a put-back) makes the gate measure afresh.
 */

/** The files the coverage gate measures: the ticket's changed code, not its tests, not deleted. */
export async function measuredFiles(
  ctx: Pick<RunContext, 'deps' | 'log' | 'manifest'>,
): Promise<{ path: string; before: string | null; after: string | null }[]> {
  const tests = new Set(ctx.manifest.testFiles);
  return (await cumulativeChanges(ctx)).filter((c) => c.after !== null && isCodePath(c.path) && !tests.has(c.path) && !isTestPath(c.path));
}

interface Judged {
  /** The log's length when the run started: a `files.written` past it means the code changed. */
  from: number;
  measure: string[];
  /** Its measure, which may still be being read. */
  result: Promise<CoverageResult>;
}

/** One per run segment's log: what the last judging run measured. */
const judged = new WeakMap<RunLog, Judged>();

/** Whether the judging test runs measure coverage in this run. */
export function measuresAsItJudges(ctx: RunContext, framework: TestRunRequest['framework']): boolean {
  const gates = ctx.deps.gates;
  return !!gates?.enabled.includes('coverage') && !!gates.coverage?.measuresAsItRuns?.(framework);
}

/**
 * Runs the ticket's tests to judge an attempt, measuring the changed code's coverage in the same
 * run when that costs next to nothing. The result is the test run's, as without a measure.
 */
export async function judgingTestRun(ctx: RunContext, request: TestRunRequest): Promise<TestRunResult> {
  const coverage = ctx.deps.gates?.coverage;
  if (!coverage || !measuresAsItJudges(ctx, request.framework)) {
    judged.delete(ctx.log);
    return ctx.deps.tests.run(request, ctx.signal);
  }
  const measure = (await measuredFiles(ctx)).map((c) => c.path);
  const from = ctx.log.events.length;
  // The measure may still be read when the tests' result is back: the checks go on meanwhile.
  const run: MeasuredRun = coverage.measuredRun
    ? await coverage.measuredRun({ ...request, measure }, ctx.signal)
    : await coverage.run({ ...request, measure }, ctx.signal).then((r) => ({ tests: r.tests, coverage: Promise.resolve(r) }));
  // A port that breaks its word and rejects: no measure, said so, as for any unusable one.
  const result = run.coverage.catch((err: unknown): CoverageResult => ({
    status: 'error',
    tests: run.tests,
    files: [],
    detail: errorMessage(err),
  }));
  // A measure with no test run behind it (the runner could not measure): the tests run as ever.
  if (!run.tests) {
    judged.delete(ctx.log);
    return ctx.deps.tests.run(request, ctx.signal);
  }
  judged.set(ctx.log, { from, measure, result });
  return run.tests;
}

/**
 * The coverage of the last judging run, when it measured exactly `measure` and nothing was
 * written since it started; otherwise undefined, and the gate measures in a run of its own.
 */
export function judgedCoverage(ctx: Pick<RunContext, 'log'>, measure: readonly string[]): Promise<CoverageResult> | undefined {
  const j = judged.get(ctx.log);
  if (!j) return undefined;
  const sameFiles = j.measure.length === measure.length && j.measure.every((f, i) => f === measure[i]);
  const written = ctx.log.events.slice(j.from).some((e) => e.type === 'files.written' || e.type === 'oracle.tampered');
  return sameFiles && !written ? j.result : undefined;
}
