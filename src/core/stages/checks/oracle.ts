import type { TestRunResult } from '../../schema/checks';
import { DEFAULT_TEST_TIMEOUT_MS, type RunContext } from '../common/context';
import { RunStop } from '../../recovery/runStop';
import { describeTampering, type OracleCheckpoint, type TamperedFile } from '../common/oraclePins';
import { expectedNotPassed, type PlannedCase } from './plannedCases';
import { expectedCases } from './authoredCases';
import { judgingTestRun } from './judgedCoverage';
import { seeded } from './propertySeed';

/**
 * Checks the oracle at a checkpoint; a changed file is recorded (`oracle.tampered`), its
 * changed bytes kept in the blob store for the record, and its trusted content written back.
 * Returns what changed (empty: intact). Without an oracle (a run that rendered nothing yet)
 * there is nothing to check.
 */
export async function guardOracle(ctx: RunContext, attempt: number, at: OracleCheckpoint): Promise<TamperedFile[]> {
  await guardRunLog(ctx);
  const oracle = ctx.oracle;
  if (!oracle) return [];
  const { workspace } = ctx.deps;
  const changed = await oracle.changed((p) => workspace.readFile(p));
  if (!changed.length) return [];
  const restored = [];
  for (const t of changed) {
    const now = await workspace.readFile(t.path);
    const trusted = oracle.contentOf(t.path)!;
    await workspace.writeFile(t.path, trusted);
    restored.push({ path: t.path, before: now === null ? null : await ctx.log.putBlob(now), after: await ctx.log.putBlob(trusted) });
  }
  await ctx.log.emit({ type: 'oracle.tampered', attempt, at, files: changed });
  await ctx.log.emit({ type: 'files.written', attempt, by: 'oracle', files: restored });
  return changed;
}

/**
 * The run's own record: the log on disk must hold exactly the events this run wrote. Code under
 * test that edits or appends to it (with no sandbox to make it read-only) could make every view
 * of the run say something the run never did; the log cannot be put back line by line, so the
 * run stops here, failed, and the views of the damaged file refuse it (they name the line).
 */
async function guardRunLog(ctx: RunContext): Promise<void> {
  if (await ctx.log.matchesStore()) return;
  const file = ctx.log.path.replace(/\\/g, '/');
  const rel = file.startsWith(ctx.deps.workspaceRoot.replace(/\\/g, '/') + '/') ? file.slice(ctx.deps.workspaceRoot.length + 1) : file;
  throw new RunStop({ kind: 'oracleTampered', files: [rel] }, 'failed');
}

/**
 * The ticket's rendered tests, run between two checks of the oracle. A run during which the
 * oracle changed cannot pass, whatever the runner reported: its result is failed, with the
 * change named in the output the Coder and the Debugger read. `tampered` lists what changed.
 */
export async function runOracleTests(ctx: RunContext, attempt: number): Promise<{ result: TestRunResult; tampered: TamperedFile[] }> {
  const { ran, tampered } = await guardedTestRun(ctx, attempt, ctx.manifest.testFiles);
  return { result: counted(ran, tampered, expectedCases(ctx, 'visible')), tampered };
}

/**
 * One command of the runner on `files` (the visible tests, and the held-out ones when they
 * judge beside them), between two checks of the oracle. `tampered` lists what changed.
 */
export async function guardedTestRun(
  ctx: RunContext,
  attempt: number,
  files: string[],
): Promise<{ ran: TestRunResult; tampered: TamperedFile[] }> {
  const { deps, manifest } = ctx;
  const before = await guardOracle(ctx, attempt, 'beforeTests');
  const ran = await judgingTestRun(ctx, {
    framework: manifest.runner.framework,
    files,
    timeoutMs: deps.testTimeoutMs ?? DEFAULT_TEST_TIMEOUT_MS,
    ...(await seeded(ctx, attempt)),
  });
  const after = await guardOracle(ctx, attempt, 'afterTests');
  // The runner may have put a changed file back already (its side-effect check): a pinned file among them was tampered with all the same.
  const pinned = new Set(ctx.oracle?.paths ?? []);
  const undone = (ran.sideEffects ?? []).filter((s) => pinned.has(s.path) && !after.some((t) => t.path === s.path));
  if (undone.length) {
    const tampered = undone.map((s) => ({
      path: s.path,
      expected: ctx.deps.hash(ctx.oracle!.contentOf(s.path)!),
      actual: s.change === 'deleted' ? null : 'put back by the test runner',
    }));
    await ctx.log.emit({ type: 'oracle.tampered', attempt, at: 'afterTests', files: tampered });
    after.push(...tampered);
  }
  return { ran, tampered: [...before, ...after] };
}

/**
 * What a run of the `expected` cases counts as: failed when the oracle changed around it (the
 * change named in its output), and failed when a "passed" does not show every expected case passing.
 */
export function counted(ran: TestRunResult, tampered: readonly TamperedFile[], expected: readonly PlannedCase[]): TestRunResult {
  if (!tampered.length) return unlessCasesMissing(ran, expected);
  const note = [
    '[ticket-runner] the oracle changed around this test run, so its result cannot count:',
    ...describeTampering(tampered),
  ].join('\n');
  return { ...ran, status: ran.status === 'passed' ? 'failed' : ran.status, output: `${ran.output}\n${note}` };
}

/** A "passed" that does not show every expected case passing is a failed run (see `casesNotPassed`). */
function unlessCasesMissing(ran: TestRunResult, expected: readonly PlannedCase[]): TestRunResult {
  if (ran.status !== 'passed') return ran;
  const missing = expectedNotPassed(expected, ran);
  if (!missing.length) return ran;
  const note = [
    '[ticket-runner] the test runner said passed, but these cases of the test plan did not pass, so the run cannot count:',
    ...missing.map((m) => `  ${m}`),
  ].join('\n');
  return { ...ran, status: 'failed', output: `${ran.output}\n${note}` };
}
