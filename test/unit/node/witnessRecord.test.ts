import assert from 'node:assert/strict';
import type { TestCaseResult } from '../../../src/core/schema/checks';
import { judgedByWitness, type WitnessedRunner, type WitnessLine } from '../../../src/node/testRunners/witnessRecord';

const KEY = 'a'.repeat(64);
const line = (l: WitnessLine, key = KEY): string => `${key} ${JSON.stringify(l)}`;
const passed = (name: string): TestCaseResult => ({ name, status: 'passed' });
/** The statuses the runner's report is judged to, by name. */
const judge = (cases: TestCaseResult[], lines: string[], runner: WitnessedRunner = 'mocha'): [string, string][] =>
  judgedByWitness({ cases, complete: true }, lines.join('\n'), KEY, runner).cases.map((c) => [c.name, c.status]);

describe("mocha's report judged by the witness", () => {
  it('a pass stands when the test was declared once and its function ran and returned; failures and skips stay as reported', () => {
    const lines = [
      line({ declared: 1, title: 's a' }),
      line({ ran: 1, passed: true }),
      line({ declared: 2, title: 's b' }),
      line({ ran: 2, passed: false }),
    ];
    assert.deepEqual(judge([passed('s a'), { name: 's b', status: 'failed' }, { name: 's c', status: 'skipped' }], lines), [
      ['s a', 'passed'],
      ['s b', 'failed'],
      ['s c', 'skipped'],
    ]);
  });

  it('a retried test is judged by its last run', () => {
    assert.deepEqual(
      judge([passed('s a')], [line({ declared: 1, title: 's a' }), line({ ran: 1, passed: false }), line({ ran: 1, passed: true })]),
      [['s a', 'passed']],
    );
  });

  it('hostile: a pass whose function threw, never ran, or that no test file declared is a failure, saying why', () => {
    const r = judgedByWitness(
      { cases: [passed('s threw'), passed('s never'), passed('s made up')], complete: true },
      [line({ declared: 1, title: 's threw' }), line({ ran: 1, passed: false }), line({ declared: 2, title: 's never' })].join('\n'),
      KEY,
      'mocha',
    );
    assert.deepEqual(
      r.cases.map((c) => [c.status, c.message]),
      [
        ['failed', '[ticket-runner] mocha reported this test passed, but the function a test file gave it threw or was rejected'],
        ['failed', '[ticket-runner] mocha reported this test passed, but the function a test file gave it never ran'],
        [
          'failed',
          "[ticket-runner] mocha reported this test passed, but no describe and it of a test file declared it (mocha's qunit and exports interfaces are not judged)",
        ],
      ],
    );
  });

  it('hostile: a title declared again with a function that passes does not stand in for the one that failed, in either order', () => {
    const real = [line({ declared: 1, title: 's a' }), line({ ran: 1, passed: false })];
    const fake = [line({ declared: 2, title: 's a' }), line({ ran: 2, passed: true })];
    assert.deepEqual(judge([passed('s a')], [...real, ...fake]), [['s a', 'failed']]);
    assert.deepEqual(judge([passed('s a')], [...fake, ...real]), [['s a', 'failed']]);
  });

  it('hostile: lines without the key, or cut short, count for nothing; a describe whose body did not run fails every pass', () => {
    const forged = [
      line({ declared: 1, title: 's a' }, 'b'.repeat(64)),
      line({ ran: 1, passed: true }, 'b'.repeat(64)),
      `x${line({ declared: 1, title: 's a' })}`,
      `${KEY} {"declared":1,"ti`,
    ];
    assert.deepEqual(judge([passed('s a')], forged), [['s a', 'failed']]);
    assert.deepEqual(
      judge([passed('s a')], [line({ declared: 1, title: 's a' }), line({ ran: 1, passed: true }), line({ tampered: 's' })]),
      [['s a', 'failed']],
    );
    assert.deepEqual(judge([passed('s a')], []), [['s a', 'failed']]);
  });
});

describe("node:test's report judged by the witness", () => {
  const ran = (id: string, title: string, passed = true): string[] => [line({ declared: id, title }), line({ ran: id, passed })];

  it('a pass stands when its function and those of the tests around it ran and returned, in each test file process', () => {
    const lines = [...ran('7.1', 's'), ...ran('7.2', 's > a'), ...ran('7.3', 's > a > t'), ...ran('8.1', 'other')];
    assert.deepEqual(judge([passed('s > a'), passed('s > a > t'), passed('other')], lines, 'node:test'), [
      ['s > a', 'passed'],
      ['s > a > t', 'passed'],
      ['other', 'passed'],
    ]);
  });

  it('hostile: a suite whose body never ran fails every pass inside it, even beside a suite of the same name whose body ran; one beside it stands', () => {
    const lines = [line({ declared: '7.1', title: 's' }), ...ran('7.2', 's'), ...ran('7.3', 's > a'), ...ran('7.4', 'sibling')];
    const r = judgedByWitness({ cases: [passed('s > a'), passed('sibling')], complete: true }, lines.join('\n'), KEY, 'node:test');
    assert.deepEqual(
      r.cases.map((c) => [c.name, c.status, c.message]),
      [
        ['s > a', 'failed', '[ticket-runner] node:test reported this test passed, but the function of "s", around it, never ran'],
        ['sibling', 'passed', undefined],
      ],
    );
  });

  it("a test file's own result, which node:test gives a file that made no test, is left to the plan's cases", () => {
    const file: TestCaseResult = { name: 'test/empty.test.ts', file: 'test/empty.test.ts', status: 'passed' };
    assert.deepEqual(judge([file], [], 'node:test'), [['test/empty.test.ts', 'passed']]);
    assert.deepEqual(judge([file], []), [['test/empty.test.ts', 'failed']]);
  });

  it('hostile: a pass no test file made is a failure, and a name that only starts like a suite is not inside it', () => {
    assert.deepEqual(judge([passed('s > a'), passed('s2')], [line({ declared: '7.1', title: 's' }), ...ran('7.2', 's2')], 'node:test'), [
      ['s > a', 'failed'],
      ['s2', 'passed'],
    ]);
  });
});
