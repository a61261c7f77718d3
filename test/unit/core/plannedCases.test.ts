import assert from 'node:assert/strict';
import { casesNotPassed } from '../../../src/core/stages/checks/plannedCases';
import { TestPlan } from '../../../src/core/schema/testPlan';
import type { TestCaseResult } from '../../../src/core/schema/checks';

const plan = TestPlan.parse({
  files: [
    {
      path: './test/ticket/T-1.test.ts',
      suite: 'T-1 limits',
      cases: [
        { name: 'rejects above 100', criterion: 'AC1', expect: [{ kind: 'truthy', actual: 'true' }] },
        { name: '[AC2] accepts 100', criterion: 'AC2', expect: [{ kind: 'truthy', actual: 'true' }] },
      ],
    },
  ],
});
const FILE = 'test/ticket/T-1.test.ts';
const ok = (name: string, extra: Partial<TestCaseResult> = {}): TestCaseResult => ({ name, file: FILE, status: 'passed', ...extra });

describe('the planned cases a passing test run must show', () => {
  it("every planned case reported passed, by file and full name: nothing missing (node:test, vitest and jest names; mocha's space-joined titles; a report with no file)", () => {
    assert.deepEqual(
      casesNotPassed(plan, { cases: [ok('T-1 limits > [AC1] rejects above 100'), ok('T-1 limits > [AC2] accepts 100')] }),
      [],
    );
    assert.deepEqual(casesNotPassed(plan, { cases: [ok('T-1 limits [AC1] rejects above 100'), ok('T-1 limits [AC2] accepts 100')] }), []);
    assert.deepEqual(
      casesNotPassed(plan, {
        cases: [{ name: 'T-1 limits > [AC1] rejects above 100', status: 'passed' }, ok('T-1 limits > [AC2] accepts 100')],
      }),
      [],
    );
  });

  it('hostile reports: a file reported as one passing test, skipped cases, renamed cases, a case in another file, and a name reported once passed and once failed', () => {
    assert.deepEqual(casesNotPassed(plan, { cases: [ok(FILE)] }), [
      `${FILE} › T-1 limits > [AC1] rejects above 100: not run`,
      `${FILE} › T-1 limits > [AC2] accepts 100: not run`,
    ]);
    assert.deepEqual(
      casesNotPassed(plan, {
        cases: [ok('T-1 limits > [AC1] rejects above 100', { status: 'skipped' }), ok('T-1 limits > [AC2] accepts 100')],
      }),
      [`${FILE} › T-1 limits > [AC1] rejects above 100: skipped`],
    );
    assert.equal(casesNotPassed(plan, { cases: [ok(' > [AC1] rejects above 100'), ok(' > [AC2] accepts 100')] }).length, 2);
    assert.equal(
      casesNotPassed(plan, {
        cases: [ok('T-1 limits > [AC1] rejects above 100', { file: 'test/other.test.ts' }), ok('T-1 limits > [AC2] accepts 100')],
      }).length,
      1,
    );
    const twice = [
      ok('T-1 limits > [AC1] rejects above 100'),
      ok('T-1 limits > [AC1] rejects above 100', { status: 'failed' }),
      ok('T-1 limits > [AC2] accepts 100'),
    ];
    assert.deepEqual(casesNotPassed(plan, { cases: twice }), [`${FILE} › T-1 limits > [AC1] rejects above 100: failed`]);
    assert.deepEqual(casesNotPassed(plan, { cases: [...twice].reverse() }), [`${FILE} › T-1 limits > [AC1] rejects above 100: failed`]);
  });
});
