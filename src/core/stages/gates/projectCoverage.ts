import type { CoveragePort } from '../../ports/gates';
import { DEFAULT_TEST_TIMEOUT_MS, type RunContext } from '../common/context';
import { projectTestGroups, testsReaching } from '../checks/projectTests';

/** Hits per line of each file, or why no measure could be had. */
export type ProjectHits = { hits: Map<string, Map<number, number>> } | { error: string };

/**
 * The changed files no ticket test loads but the project's own tests reach (a caller the
 * change had to follow, as MONO-2's app), measured under those tests: each package's reaching
 * test files run once more, with its runner's coverage, measuring the files they reach. That a
 * project test imports a file says nothing of whether it calls the new code: only the measure
 * does. A line's hits are the most any run gave it; a file no run reports has none, and every
 * changed line of it counts as not run. A run whose tests do not pass, or that leaves no usable
 * measure, is an error: a measure of tests that did not run to their end is no measure.
 */
export async function projectTestHits(ctx: RunContext, coverage: CoveragePort, files: readonly string[]): Promise<ProjectHits> {
  const reaching = new Map<string, Set<string>>();
  for (const file of files) reaching.set(file, new Set(await testsReaching(ctx, [file])));
  const tests = [...new Set([...reaching.values()].flatMap((t) => [...t]))].sort();
  const hits = new Map<string, Map<number, number>>();
  for (const group of await projectTestGroups(ctx, tests)) {
    const measure = files.filter((f) => group.files.some((t) => reaching.get(f)?.has(t)));
    const r = await coverage.run({ ...group, timeoutMs: ctx.deps.testTimeoutMs ?? DEFAULT_TEST_TIMEOUT_MS, measure }, ctx.signal);
    const what = `the project's own tests that reach ${measure.join(', ')} (${group.files.join(', ')})`;
    if (r.status === 'unavailable')
      return { error: `${what} cannot be measured: ${r.detail ?? `no coverage source for ${group.framework}`}` };
    if (r.tests && r.tests.status !== 'passed')
      return { error: `${what} did not pass under coverage (${r.tests.status}, ${r.tests.failed} failed): no measure` };
    if (r.status === 'error' || !r.tests) return { error: `${what} gave no measure: ${r.detail ?? 'the tests did not run'}` };
    for (const f of r.files) {
      const lines = hits.get(f.file) ?? new Map<number, number>();
      for (const [line, count] of f.lines) lines.set(line, Math.max(lines.get(line) ?? 0, count));
      hits.set(f.file, lines);
    }
  }
  return { hits };
}
