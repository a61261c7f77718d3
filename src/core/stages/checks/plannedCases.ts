import type { TestRunResult } from '../../schema/checks';
import type { TestPlan } from '../../schema/testPlan';
import { caseName } from '../materializer/render';
import { normalizeRelPath } from '../../schema/paths';

/** One case the run expects passed: its file and its full name as the runners report it. */
export interface PlannedCase {
  file: string;
  /** Suite and case joined with " > " (node:test, vitest, jest through our parsers). */
  name: string;
  /** Mocha's own full title joins them with a space. */
  mochaName: string;
}

export function plannedCases(plan: TestPlan): PlannedCase[] {
  return plan.files.flatMap((f) =>
    f.cases.map((c) => ({ file: normalizeRelPath(f.path), name: `${f.suite} > ${caseName(c)}`, mochaName: `${f.suite} ${caseName(c)}` })),
  );
}

/**
 * The planned cases a run did not show passing, each with why: "not run", "skipped" or
 * "failed". A runner's "passed" is only its exit code and a report with no failure in it; the
 * code under test runs in that process and can end it early (`process.exit(0)` as the test file
 * imports it: node:test then reports the file as one passing test), rename or skip the cases
 * (`it` replaced by `it.skip`, or wrapped), and the run still says passed. Every case the plan
 * renders must be in the report, by its file and full name, and have passed.
 */
export function casesNotPassed(plan: TestPlan, result: Pick<TestRunResult, 'cases'>): string[] {
  return expectedNotPassed(plannedCases(plan), result);
}

/** The cases of `expected` (rendered, or listed from an authored file) a run did not show passing, each with why. */
export function expectedNotPassed(expected: readonly PlannedCase[], result: Pick<TestRunResult, 'cases'>): string[] {
  // A name reported twice counts as passed only when every report of it passed.
  const status = new Map<string, TestRunResult['cases'][number]['status']>();
  for (const c of result.cases) {
    const key = reportedKey(c.file, c.name);
    if (status.get(key) === undefined || status.get(key) === 'passed') status.set(key, c.status);
  }
  const missing: string[] = [];
  for (const p of expected) {
    const got = [p.name, p.mochaName]
      .map((n) => status.get(reportedKey(p.file, n)) ?? status.get(reportedKey(undefined, n)))
      .find((x) => x !== undefined);
    if (got !== 'passed') missing.push(`${p.file} › ${p.name}: ${got ?? 'not run'}`);
  }
  return missing;
}

/** A report names its file relative to the workspace; one that names none matches by name alone. */
function reportedKey(file: string | undefined, name: string): string {
  return `${file === undefined ? '' : reportedFile(file)}\u0000${name}`;
}

/** A reported file as the plan names it; one that is not a workspace path stays as reported, and matches none. */
export function reportedFile(file: string): string {
  try {
    return normalizeRelPath(file);
  } catch {
    return file;
  }
}
