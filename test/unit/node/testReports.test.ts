import assert from 'node:assert/strict';
import { join } from 'node:path';
import { parseJestReport, parseMochaReport, parseNodeTestReport } from '../../../src/node/testRunners/testReports';

const root = join(__dirname, 'workspace');
const inRoot = (rel: string): string => join(root, rel);

describe('test report parsers', () => {
  it('keeps the cases of a node:test report cut off mid-line, and says it is incomplete', () => {
    const lines = [
      JSON.stringify({ type: 'test', name: 'a', status: 'passed', file: inRoot('t/a.test.ts'), durationMs: 1 }),
      JSON.stringify({ type: 'test', name: inRoot('t/b.test.ts'), status: 'failed', file: inRoot('t/b.test.ts'), message: 'test failed' }),
      '{"type":"test","na',
    ];
    const { cases, complete } = parseNodeTestReport(lines.join('\n'), root);
    assert.equal(complete, false);
    assert.deepEqual(
      cases.map((c) => [c.name, c.file, c.status]),
      [
        ['a', 't/a.test.ts', 'passed'],
        ['t/b.test.ts', 't/b.test.ts', 'failed'],
      ],
    );
  });

  it("rejects a node:test report that is not the reporter's", () => {
    assert.throws(() => parseNodeTestReport('not json\nnot json either\n', root), /garbled/);
    assert.throws(() => parseNodeTestReport('{"type":"other"}\n', root), /not a nodeTestReporter record/);
    assert.throws(() => parseNodeTestReport('{"type":"test","name":1}\n', root));
  });

  it('turns a jest file that failed to run into a failed case', () => {
    const report = {
      testResults: [{ name: inRoot('t/broken.test.js'), status: 'failed', message: 'Test suite failed to run', assertionResults: [] }],
    };
    assert.deepEqual(parseJestReport(JSON.stringify(report), root).cases, [
      { name: 't/broken.test.js', file: 't/broken.test.js', status: 'failed', message: 'Test suite failed to run' },
    ]);
    assert.throws(
      () => parseJestReport('{"numTotalTests": 0}', root),
      /the JSON report of jest or vitest is not one they write: \$\.testResults: /,
    );
  });

  it('refuses a jest report that does not fit, naming the runners and where it breaks; extra fields pass', () => {
    const suite = (title: unknown) => ({
      name: inRoot('t/a.test.js'),
      status: 'passed',
      assertionResults: [{ title, status: 'passed', ancestorTitles: [], meta: {} }],
      perfStats: {},
    });
    assert.equal(parseJestReport(JSON.stringify({ testResults: [suite('adds')], snapshot: {} }), root).cases[0]?.name, 'adds');
    assert.throws(
      () => parseJestReport(JSON.stringify({ testResults: [suite(42)] }), root),
      (e: Error) =>
        e.name === 'ToolOutputError' &&
        /^the JSON report of jest or vitest is not one they write: \$\.testResults\.0\.assertionResults\.0\.title: .*expected string/.test(
          e.message,
        ),
    );
    assert.throws(() => parseJestReport('{"testResults": [', root), /the JSON report of jest or vitest is not one they write: not JSON/);
  });

  it('refuses a mocha report that does not fit, naming mocha', () => {
    assert.throws(
      () => parseMochaReport(JSON.stringify({ passes: [] }), root),
      /mocha's JSON report is not one its json reporter writes: \$\.failures: /,
    );
    assert.throws(
      () => parseMochaReport(JSON.stringify({ passes: [{ title: 'a', duration: 'slow' }], failures: [] }), root),
      /mocha's JSON report is not one its json reporter writes: \$\.passes\.0\.duration: /,
    );
  });

  it('reports a failed mocha hook, which mocha lists only among the failures', () => {
    const hook = {
      title: '"before all" hook',
      fullTitle: 'suite "before all" hook',
      file: inRoot('t/h.test.js'),
      err: { message: 'hook broke', stack: 'Error: hook broke' },
    };
    const { cases } = parseMochaReport(JSON.stringify({ passes: [], failures: [hook], pending: [] }), root);
    assert.deepEqual(cases, [
      { name: 'suite "before all" hook', file: 't/h.test.js', status: 'failed', message: 'hook broke', stack: 'Error: hook broke' },
    ]);
  });
});
