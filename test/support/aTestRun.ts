import type { TestCaseResult, TestRunResult } from '../../src/core/schema/checks';

/** A test run's result from its cases: the counts and the status follow them; `extra` sets the rest. */
export function aTestRun(cases: TestCaseResult[], extra: Partial<TestRunResult> = {}): TestRunResult {
  const failed = cases.filter((c) => c.status === 'failed').length;
  return {
    status: failed ? 'failed' : 'passed',
    framework: 'node:test',
    command: ['node'],
    passed: cases.filter((c) => c.status === 'passed').length,
    failed,
    skipped: cases.filter((c) => c.status === 'skipped').length,
    durationMs: 5,
    cases,
    output: '',
    ...extra,
  };
}
