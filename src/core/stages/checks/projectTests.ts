import { TestRunResult } from '../../schema/checks';
import type { EventOf } from '../../schema/events';
import type { TestFramework } from '../../schema/testPlan';
import { baselineOf } from '../../run/baseline';
import { DEFAULT_TEST_TIMEOUT_MS, type RunContext } from '../common/context';
import { ImportReach } from './reach';
import { selectProjectTests } from './projectTestSelection';
import type { ProjectTestSelection } from '../../schema/gates';
import { detectRunnerFor } from '../manifest/manifestBuilder';
import { isCodePath, isTestPath } from '../../schema/paths';
import { packageOf, workspacePackages } from '../common/workspacePackages';
import { measureAfresh, type MeasureBaseline } from './keptBaselines';

/**
 * The project's own tests are the regression: the rendered tests say the ticket is done, these
 * say nothing else broke. They run with the workspace's runner (per-case results), and a case
 * counts only when it passed before the run's first write and fails now: a test that already
 * failed is the project's, not the run's.
 */

/** Where projects keep tests; a `fixtures` folder holds test data, not tests. */
const TEST_ROOTS = ['test', 'tests', '__tests__', 'spec', 'src', 'lib'];
const NOT_TESTS = /(^|\/)(node_modules|fixtures|__fixtures__|\.ticket-runner)\//;

/**
 * The project's existing test files, by the runners' shared conventions, at the root and in
 * each package of an npm-workspaces monorepo; never the ticket's own tests, rendered or authored.
 */
export async function projectTestFiles(ctx: Pick<RunContext, 'deps' | 'manifest'>): Promise<string[]> {
  const rendered = new Set([...ctx.manifest.testFiles, ...(ctx.manifest.heldOut.authored ?? [])]);
  const found = new Set<string>();
  const packages = await workspacePackages(ctx.deps.workspace);
  for (const root of ['', ...packages.map((p) => `${p.dir}/`)].flatMap((dir) => TEST_ROOTS.map((r) => dir + r))) {
    for (const f of await ctx.deps.workspace.listFiles(root)) {
      if (isTestPath(f) && isCodePath(f) && !f.endsWith('.d.ts') && !NOT_TESTS.test(f) && !rendered.has(f)) found.add(f);
    }
  }
  return [...found].sort();
}

/** The project tests that import one of `files`, directly or through other workspace files. */
export async function testsReaching(ctx: Pick<RunContext, 'deps' | 'manifest'>, files: readonly string[]): Promise<string[]> {
  if (!files.length) return [];
  const reach = new ImportReach(ctx.deps.workspace, new Set(files));
  const out: string[] = [];
  for (const t of await projectTestFiles(ctx)) if ((await reach.reaches(t)) === true) out.push(t);
  return out;
}

/** The project test files the projectTests gate runs for a change to `files`, and why those (`selectProjectTests`). */
export async function gateTestFiles(
  ctx: Pick<RunContext, 'deps' | 'manifest'>,
  files: readonly string[],
): Promise<{ files: string[]; selection: ProjectTestSelection }> {
  return selectProjectTests(ctx, await projectTestFiles(ctx), files);
}

/** A case's identity across runs: its file and full name. */
export const caseKey = (c: { file?: string; name: string }): string => `${c.file ?? ''} › ${c.name}`;

/** Whether a case's key (`caseKey`, or a finding that starts with one) names a case of one of `files`. */
export const keyInFiles = (key: string, files: readonly string[]): boolean => files.some((f) => key.startsWith(`${f} › `));

/** The cases that did not pass in a run (a run that could not report counts every file as failing). */
function notPassing(r: TestRunResult, files: readonly string[]): string[] {
  const failed = r.cases.filter((c) => c.status === 'failed').map(caseKey);
  if (r.status === 'passed' || failed.length) return failed;
  return files.map((f) => `${f} › (the file did not run: ${r.status})`);
}

/**
 * Runs the project's tests. In an npm-workspaces monorepo each package's files run as one
 * group, with that package's runner (the test runner runs them in the package), and the
 * results are joined; elsewhere they run with the ticket's runner.
 */
export async function runProjectTests(ctx: RunContext, files: readonly string[]): Promise<TestRunResult> {
  const timeoutMs = ctx.deps.testTimeoutMs ?? DEFAULT_TEST_TIMEOUT_MS;
  const results: TestRunResult[] = [];
  for (const group of await projectTestGroups(ctx, files)) results.push(await ctx.deps.tests.run({ ...group, timeoutMs }, ctx.signal));
  return joinResults(results);
}

/**
 * The project's test files as the runs that run them: in an npm-workspaces monorepo, one per
 * package, with that package's runner; elsewhere one, with the ticket's runner.
 */
export async function projectTestGroups(
  ctx: Pick<RunContext, 'deps' | 'manifest'>,
  files: readonly string[],
): Promise<{ framework: TestFramework; files: string[] }[]> {
  const packages = await workspacePackages(ctx.deps.workspace);
  if (!packages.length) return [{ framework: ctx.manifest.runner.framework, files: [...files] }];
  const groups = new Map<string, string[]>();
  for (const f of files) {
    const dir = packageOf(packages, f)?.dir ?? '';
    groups.set(dir, [...(groups.get(dir) ?? []), f]);
  }
  const out: { framework: TestFramework; files: string[] }[] = [];
  for (const [dir, group] of groups) {
    const framework = dir ? (await detectRunnerFor(ctx.deps.workspace, group[0]!)).runner.framework : ctx.manifest.runner.framework;
    out.push({ framework, files: group });
  }
  return out;
}

/** Several runs as one: the worst status, every case, each run's output in turn. */
export function joinResults(results: TestRunResult[]): TestRunResult {
  if (results.length === 1) return results[0]!;
  const rank = ['passed', 'failed', 'timeout', 'error'] as const;
  const status = rank[Math.max(...results.map((r) => rank.indexOf(r.status)))]!;
  const sideEffects = results.flatMap((r) => r.sideEffects ?? []);
  return {
    status,
    framework: [...new Set(results.map((r) => r.framework))].join(', '),
    command: results.flatMap((r, i) => (i ? ['&&', ...r.command] : r.command)),
    passed: results.reduce((n, r) => n + r.passed, 0),
    failed: results.reduce((n, r) => n + r.failed, 0),
    skipped: results.reduce((n, r) => n + r.skipped, 0),
    durationMs: results.reduce((n, r) => n + r.durationMs, 0),
    cases: results.flatMap((r) => r.cases),
    output: results.map((r) => r.output).join('\n'),
    ...(sideEffects.length ? { sideEffects } : {}),
  };
}

type Baseline = EventOf<'projectTests.baseline'>;

/** What the project's tests did before the run's first write, as the `projectTests.baseline` event records it. */
export type ProjectTestBaseline = Omit<Baseline, 'runId' | 'seq' | 'ts' | 'type'>;

/**
 * Before the run's first write: runs the project tests that the run could affect (those that
 * reach the files in scope; when the projectTests gate will run, the ones it would run for a
 * change to them) and finds which cases did not pass. Nothing to run, no baseline. `touched`: the
 * run changed files of the workspace (put back since), so what was read beside it may have read
 * them mid-change.
 */
export async function measureProjectTestBaseline(
  ctx: RunContext,
  measure: MeasureBaseline = measureAfresh,
): Promise<{ baseline: ProjectTestBaseline; touched: boolean } | undefined> {
  const scope = ctx.manifest.scope.write.filter((f) => f.exists).map((f) => f.path);
  const files = ctx.deps.gates?.enabled.includes('projectTests')
    ? (await gateTestFiles(ctx, scope)).files
    : await testsReaching(ctx, scope);
  if (!files.length) return undefined;
  const { value: r, reusedFrom } = await measure(
    {
      name: 'projectTests',
      question: { files, framework: ctx.manifest.runner.framework, timeoutMs: ctx.deps.testTimeoutMs ?? DEFAULT_TEST_TIMEOUT_MS },
      schema: TestRunResult,
      keepable: undisturbed,
    },
    async () => outcomesOnly(await runProjectTests(ctx, files)),
  );
  const passing = r.cases.filter((c) => c.status === 'passed').map(caseKey);
  return {
    baseline: {
      files,
      status: r.status,
      failing: notPassing(r, files),
      passing,
      ...(reusedFrom ? { reusedFrom } : {}),
      durationMs: r.durationMs,
    },
    touched: !reusedFrom && (r.sideEffects ?? []).length > 0,
  };
}

/**
 * What a baseline reads of its run, and so all that is kept of it: which cases passed and failed,
 * never what they printed (the output, an assertion's values), which may quote anything.
 */
function outcomesOnly(r: TestRunResult): TestRunResult {
  return { ...r, output: '', cases: r.cases.map(({ name, file, status }) => ({ name, ...(file === undefined ? {} : { file }), status })) };
}

/**
 * A run of the project's tests that may stand for the next runs on the same workspace: it ended
 * (no timeout, no runner error) and nothing disturbed it (no write it made to the workspace, no
 * change to the tools that judge, no save of the user's beside it).
 */
function undisturbed(r: TestRunResult): boolean {
  return (r.status === 'passed' || r.status === 'failed') && !r.sideEffects?.length && !r.judgingTools?.length && !r.workspaceEdits?.length;
}

function baselineOfTests(ctx: Pick<RunContext, 'log'>): Baseline | undefined {
  return ctx.log.events.find((e): e is Baseline => e.type === 'projectTests.baseline');
}

export interface RegressionOutcome {
  files: string[];
  result?: TestRunResult;
  /** Cases that passed (or were not run) before the run and fail now: they count. */
  newlyFailing: string[];
  /** Cases that already failed before the run: shown, never counted. */
  preExisting: string[];
}

/**
 * Runs `files` of the project's tests and compares them with the baseline. A file the baseline
 * did not run is judged on its own: every failing case counts.
 */
export async function projectRegression(ctx: RunContext, files: readonly string[]): Promise<RegressionOutcome> {
  if (!files.length) return { files: [], newlyFailing: [], preExisting: [] };
  const result = await runProjectTests(ctx, files);
  const before = baselineOfTests(ctx);
  const old = new Set(before?.failing ?? []);
  const failing = notPassing(result, files);
  // A test file the run edited itself may lose or rename cases on purpose (it was in scope).
  const edited = new Set(changedByRun(ctx));
  return {
    files: [...files],
    result,
    newlyFailing: [
      ...failing.filter((k) => !old.has(k)),
      ...vanished(
        before,
        result,
        files.filter((f) => !edited.has(f)),
      ),
    ],
    preExisting: failing.filter((k) => old.has(k)),
  };
}

/**
 * Cases of these files that passed before the run and are not reported passing now: skipped, or
 * gone from the report. Code under test runs in the runner's process and can end it early
 * (node:test then reports the file as one passing test) or skip the cases; neither is a pass.
 * `files` leaves out the test files the run edited.
 */
function vanished(before: Baseline | undefined, now: TestRunResult, files: readonly string[]): string[] {
  const seen = new Map(now.cases.map((c) => [caseKey(c), c.status] as const));
  return (before?.passing ?? [])
    .filter((k) => keyInFiles(k, files) && seen.get(k) !== 'passed' && seen.get(k) !== 'failed')
    .map((k) => `${k} (${seen.get(k) ?? 'not run'}; it passed before the run)`);
}

/** The files the run has changed so far (any writer but the materializer and the oracle guard). */
export function changedByRun(ctx: Pick<RunContext, 'log'>): string[] {
  const ours = new Set(['coder', 'op', 'autofix', 'repair'] as const);
  return [...baselineOf(ctx.log.events, ours).keys()];
}
