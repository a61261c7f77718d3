import { CancelledError, isAbort } from '../../errors';
import type { RunContext } from '../common/context';
import { measureBaseline } from './findingsBaseline';
import { measureProjectTestBaseline } from './projectTests';

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
  const findings = needed.findings ? measureBaseline(ctx) : undefined;
  const tests = needed.projectTests ? measureProjectTestBaseline(ctx) : undefined;
  // Both settle before either outcome counts: a failure of one never leaves the other running unwatched.
  const [f, t] = await Promise.allSettled([findings, tests]);
  if (f.status === 'rejected' || t.status === 'rejected') {
    const failures = [f, t].flatMap((r): unknown[] => (r.status === 'rejected' ? [r.reason] : []));
    // A cancel ends both, and one of them may fail in its own words as it is stopped (a checker torn
    // down mid-question): the run was cancelled, and it says so, as it did when one ran after the other.
    throw failures.find(isAbort) ?? (ctx.signal.aborted ? new CancelledError('cancelled before the first write') : failures[0]);
  }
  const baseline = f.value && t.value?.touched ? await measureBaseline(ctx) : f.value;
  if (baseline) await ctx.log.emit({ type: 'baseline.recorded', ...baseline });
  if (t.value) await ctx.log.emit({ type: 'projectTests.baseline', ...t.value.baseline });
}
