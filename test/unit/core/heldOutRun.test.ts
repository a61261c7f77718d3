import assert from 'node:assert/strict';
import type { TestCaseResult, TestRunResult } from '../../../src/core/schema/checks';
import { TestPlan } from '../../../src/core/schema/testPlan';
import { splitHeldOut } from '../../../src/core/stages/checks/heldOutRun';
import { counted } from '../../../src/core/stages/checks/oracle';
import { plannedCases } from '../../../src/core/stages/checks/plannedCases';

/**
 * One runner command judges the visible and the held-out cases; its result is split in two.
 * The split must never make a pass the runner did not give: the bad cases first.
 */

const HELD = 'test/ticket/T.heldout.test.ts';
const SHOWN = 'test/ticket/T.test.ts';
/** A plan of one case, with the schema's defaults. */
const aPlan = (file: string, name: string): TestPlan =>
  TestPlan.parse({
    files: [{ path: file, suite: 'T', cases: [{ name, criterion: 'AC2', expect: [{ kind: 'truthy', actual: 'true' }] }] }],
  });
const heldCases = plannedCases(aPlan(HELD, 'held'));
const shownCases = plannedCases(aPlan(SHOWN, 'shown'));

const aCase = (file: string | undefined, name: string, status: TestCaseResult['status']): TestCaseResult => ({
  name: `T > [AC2] ${name}`,
  ...(file ? { file } : {}),
  status,
});
const aRun = (status: TestRunResult['status'], cases: TestCaseResult[]): TestRunResult => ({
  status,
  framework: 'node:test',
  command: ['node', '--test'],
  passed: cases.filter((c) => c.status === 'passed').length,
  failed: cases.filter((c) => c.status === 'failed').length,
  skipped: 0,
  durationMs: 10,
  cases,
  output: 'the held-out case printed its input here',
});
const split = (run: TestRunResult) => splitHeldOut(run, [HELD], heldCases);

describe('one command for the visible and the held-out cases: its result split in two', () => {
  it('a command that failed with no failed case (a side effect it could not undo) fails the visible cases too', () => {
    const { visible, heldOut } = split(aRun('failed', [aCase(SHOWN, 'shown', 'passed'), aCase(HELD, 'held', 'passed')]));
    assert.equal(visible.status, 'failed');
    assert.equal(heldOut.status, 'failed');
  });

  it('a visible case that failed beside a failed held-out case fails the visible cases: the Coder is told of its own failure', () => {
    const { visible } = split(aRun('failed', [aCase(SHOWN, 'shown', 'failed'), aCase(HELD, 'held', 'failed')]));
    assert.equal(visible.status, 'failed');
    assert.deepEqual(
      visible.cases.map((c) => c.name),
      ['T > [AC2] shown'],
    );
  });

  it('a command that timed out or was void stays so on both sides', () => {
    for (const status of ['timeout', 'error'] as const) {
      const { visible, heldOut } = split(aRun(status, [aCase(SHOWN, 'shown', 'passed'), aCase(HELD, 'held', 'passed')]));
      assert.deepEqual([visible.status, heldOut.status], [status, status]);
    }
  });

  it('an oracle changed around the command fails both, whatever the split says', () => {
    const { visible, heldOut } = split(aRun('failed', [aCase(SHOWN, 'shown', 'passed'), aCase(HELD, 'held', 'failed')]));
    const tampered = [{ path: SHOWN, expected: 'ab', actual: 'cd' }];
    assert.equal(counted(visible, tampered, shownCases).status, 'failed');
    assert.equal(counted(heldOut, tampered, heldCases).status, 'failed');
  });

  it('only a held-out case failing: the visible cases pass and the held-out ones fail (too narrow)', () => {
    const { visible, heldOut } = split(aRun('failed', [aCase(SHOWN, 'shown', 'passed'), aCase(HELD, 'held', 'failed')]));
    assert.deepEqual([visible.status, visible.passed, visible.failed], ['passed', 1, 0]);
    assert.deepEqual([heldOut.status, heldOut.passed, heldOut.failed], ['failed', 0, 1]);
    assert.deepEqual(
      heldOut.cases.map((c) => c.file),
      [HELD],
    );
  });

  it('a case reported with no file goes by its planned name', () => {
    const { visible, heldOut } = split(aRun('failed', [aCase(undefined, 'shown', 'passed'), aCase(undefined, 'held', 'failed')]));
    assert.deepEqual([visible.status, heldOut.status], ['passed', 'failed']);
  });

  it('never: both pass unless the runner said passed, for every command status and every mix of case results', () => {
    const statuses: TestCaseResult['status'][] = ['passed', 'failed', 'skipped'];
    for (const run of ['passed', 'failed', 'timeout', 'error'] as const) {
      for (const a of statuses) {
        for (const b of statuses) {
          for (const file of [HELD, undefined]) {
            const { visible, heldOut } = split(aRun(run, [aCase(SHOWN, 'shown', a), aCase(file, 'held', b)]));
            const both = counted(visible, [], shownCases).status === 'passed' && counted(heldOut, [], heldCases).status === 'passed';
            assert.ok(
              !both || (run === 'passed' && a === 'passed' && b === 'passed'),
              `${run}, shown ${a}, held ${b} (${file ?? 'no file'})`,
            );
          }
        }
      }
    }
  });
});
