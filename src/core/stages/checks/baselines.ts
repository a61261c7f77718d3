import { CancelledError, isAbort } from '../../errors';
import type { RunContext } from '../common/context';
import { measureBaseline, warmTypecheck } from './findingsBaseline';
import { openBaselineKeeper, type MeasureBaseline } from './keptBaselines';
import { measureProjectTestBaseline } from './projectTests';
import { prepareTests } from './prepareTests';

/** Which of the two baselines a run still lacks (a resumed run keeps the ones it has). */
export interface BaselinesNeeded {
  findings: boolean;
  projectTests: boolean;
}

/**
 * The project as it is before the run's first write, measured once: its findings (type errors,
 * lint) and what its own tests do. Neither writes, so they are measured side by side and a run
 * waits about as long as the longer of the two, not both. They are recorded in one order
 * (`baseline.recorded`, then `projectTests.baseline`), whichever ended first.
 *
 * The project's tests may write to the workspace while they run (the test runner puts such
 * writes back afterwards and reports them). A type-check that ran beside them may then have
 * read a file mid-change, so when the tests touched the workspace the findings are measured
 * again, after them, as they would have been one after the other.
 */
export async function recordBaselines(ctx: RunContext, needed: BaselinesNeeded = { findings: true, projectTests: true }): Promise<void> {
  // A part an earlier run measured on this same workspace is taken from it (keptBaselines.ts).
  // Opening the keeper fingerprints the workspace (every installed file's stamp), and may wait
  // for another run measuring the same state. What no part keeps (the language service's first
  // look at the scope, the project's test files picked) goes on meanwhile: each part waits for
  // the keeper only as it is measured.
  const opening = openBaselineKeeper(ctx);
  // The tests' runner gets ready for the run's first command meanwhile (its copy of the
  // workspace, its first look at it): the language service's first look is in a thread of its own.
  prepareTests(ctx, []);
  opening.catch(() => undefined);
  const measure: MeasureBaseline = (part, fn) => opening.then((keeper) => keeper.measure(part, fn));
  const findings = needed.findings ? measureBaseline(ctx, measure) : undefined;
  const tests = needed.projectTests ? measureProjectTestBaseline(ctx, measure) : undefined;
  // Both settle before either outcome counts: a failure of one never leaves the other running unwatched.
  const [f, t] = await Promise.allSettled([findings, tests]);
  // Kept only when both ended and the tests left the workspace alone (the findings are otherwise
  // measured again). A keeper that could not open has nothing to keep or release, and the parts
  // that waited for it failed with its error.
  const keeper = await opening.catch(() => undefined);
  await keeper?.settle(f.status === 'fulfilled' && t.status === 'fulfilled' && !t.value?.touched);
  if (!keeper && f.status === 'fulfilled' && t.status === 'fulfilled') await opening;
  if (f.status === 'rejected' || t.status === 'rejected') {
    const failures = [f, t].flatMap((r): unknown[] => (r.status === 'rejected' ? [r.reason] : []));
    // A cancel ends both, and one of them may fail in its own words as it is stopped (a checker torn
    // down mid-question): the run was cancelled, and it says so, as it did when one ran after the other.
    throw failures.find(isAbort) ?? (ctx.signal.aborted ? new CancelledError('cancelled before the first write') : failures[0]);
  }
  const baseline = f.value && t.value?.touched ? await measureBaseline(ctx) : f.value;
  if (baseline) await ctx.log.emit({ type: 'baseline.recorded', ...baseline });
  warmTypecheck(ctx, baseline);
  if (t.value) await ctx.log.emit({ type: 'projectTests.baseline', ...t.value.baseline });
}
