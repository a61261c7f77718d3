import type { RunLog } from '../../run/runLog';
import type { RunEvent } from '../../schema/events';
import type { RunContext } from '../common/context';
import { changedByRun, gateTestFiles, joinResults, keyInFiles, projectRegression, type RegressionOutcome } from './projectTests';

/**
 * The project's own tests run once per question. An attempt whose ticket tests pass runs the
 * project tests that reach its changes; the projectTests gate, moments later, asks the same of
 * its own files (the same ones, or the whole suite: `selectProjectTests`). When nothing could have changed what the tests read in between, the
 * gate takes the attempt's results for the files it ran and runs only the others.
 *
 * "Nothing could have changed" is read from the log, by an allowlist: after the attempt's run
 * only gates that read the workspace (the type-check, lint) or were skipped may have happened. A
 * write of any kind (a repair, a put-back, the oracle's restore), the build gate (its command
 * writes its outputs, which a test may import) or any other event sends the gate back to running
 * every file.
 */

interface AttemptRun {
  /** The log's length when the run started: what happened after it is checked. */
  from: number;
  attempt: number;
  outcome: RegressionOutcome;
}

/** One per run segment's log: the last attempt's run of the project tests. */
const lastRun = new WeakMap<RunLog, AttemptRun>();

/** Gates that only read the workspace: they leave the tests' inputs as they were. */
const READ_ONLY_GATES = new Set(['typecheck', 'lint']);

const leavesWorkspaceAsItWas = (e: RunEvent): boolean =>
  e.type === 'projectTests.ran' || (e.type === 'gate.ran' && (e.status === 'skipped' || (READ_ONLY_GATES.has(e.gate) && !e.repaired)));

/**
 * Runs `files` of the project's tests for an attempt's checks, and keeps the result for the gate.
 * `along`: the gate's other files, run in the same command when that costs little (see
 * `filesAlong`); the attempt is judged on `files` alone, and the gate takes all of them.
 */
export async function attemptRegression(
  ctx: RunContext,
  attempt: number,
  files: readonly string[],
  along: readonly string[] = [],
): Promise<RegressionOutcome> {
  const from = ctx.log.events.length;
  const outcome = await projectRegression(ctx, [...files, ...along.filter((f) => !files.includes(f))]);
  lastRun.set(ctx.log, { from, attempt, outcome });
  return along.length ? restrictedTo(outcome, files) : outcome;
}

/**
 * How long the project's whole suite may have taken before the run for the gate's files to run
 * along with the attempt's: one command instead of two (a sandbox, a runner and its loader started
 * once), for at most this much more on an attempt whose own files fail.
 */
export const ALONG_LIMIT_MS = 2_000;

/**
 * The files the projectTests gate will run that the attempt's run would not, when the gate will
 * run and the whole suite took at most ALONG_LIMIT_MS before the run; otherwise none.
 */
export async function filesAlong(ctx: RunContext, files: readonly string[]): Promise<string[]> {
  if (!ctx.deps.gates?.enabled.includes('projectTests')) return [];
  const before = ctx.log.events.find((e) => e.type === 'projectTests.baseline');
  if (!before || before.type !== 'projectTests.baseline' || before.durationMs > ALONG_LIMIT_MS) return [];
  return (await gateTestFiles(ctx, changedByRun(ctx))).files.filter((f) => !files.includes(f));
}

/**
 * An outcome as if only `files` had run: their cases, their findings. A finding no file of the run
 * can be named for counts as theirs, and a run that failed for no case of another file (its side
 * effects, say) stays failed.
 */
function restrictedTo(outcome: RegressionOutcome, files: readonly string[]): RegressionOutcome {
  const ours = (key: string) => keyInFiles(key, files) || !keyInFiles(key, outcome.files);
  const r = outcome.result;
  const cases = r?.cases.filter((c) => c.file === undefined || files.includes(c.file)) ?? [];
  const count = (s: string) => cases.filter((c) => c.status === s).length;
  const othersFailed =
    r?.status === 'failed' &&
    !cases.some((c) => c.status === 'failed') &&
    r.cases.some((c) => c.status === 'failed') &&
    !r.sideEffects?.length;
  const status = othersFailed ? 'passed' : r?.status;
  return {
    files: [...files],
    ...(r && status
      ? { result: { ...r, status, cases, passed: count('passed'), failed: count('failed'), skipped: count('skipped') } }
      : {}),
    newlyFailing: outcome.newlyFailing.filter(ours),
    preExisting: outcome.preExisting.filter(ours),
  };
}

/** The last attempt's run, when the workspace is still as that run saw it; otherwise undefined. */
function stillValid(ctx: Pick<RunContext, 'log'>): AttemptRun | undefined {
  const run = lastRun.get(ctx.log);
  return run && ctx.log.events.slice(run.from).every(leavesWorkspaceAsItWas) ? run : undefined;
}

export interface GateRegression extends RegressionOutcome {
  /** The files whose results came from the attempt's run, and that attempt; absent when all ran now. */
  reused?: { attempt: number; files: string[] };
}

/** The gate's question, over its files: the attempt's results where they still hold, a run of the rest. */
export async function gateRegression(ctx: RunContext, files: readonly string[]): Promise<GateRegression> {
  const earlier = stillValid(ctx);
  const covered = earlier && earlier.outcome.result && earlier.outcome.files.every((f) => files.includes(f)) ? earlier : undefined;
  if (!covered) return projectRegression(ctx, files);
  const ran = new Set(covered.outcome.files);
  const rest = files.filter((f) => !ran.has(f));
  const fresh = rest.length ? await projectRegression(ctx, rest) : undefined;
  const parts = fresh ? [covered.outcome, fresh] : [covered.outcome];
  return {
    files: [...files],
    result: joinResults(parts.map((p) => p.result!)),
    newlyFailing: parts.flatMap((p) => p.newlyFailing),
    preExisting: parts.flatMap((p) => p.preExisting),
    reused: { attempt: covered.attempt, files: [...covered.outcome.files] },
  };
}
