import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { ProcessTestRunner } from '../../../src/node/testRunners/testRunner';

describe('test command override', function () {
  this.timeout(30_000);
  let dir: string;
  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'tr-override-'));
    // A stand-in for a project's own test script: passes when every file it is given exists.
    writeFileSync(
      path.join(dir, 'check.js'),
      "const fs = require('fs'); const missing = process.argv.slice(2).filter((f) => !fs.existsSync(f)); console.log('checked ' + process.argv.slice(2).join(',')); process.exit(missing.length ? 1 : 0);\n",
    );
    writeFileSync(path.join(dir, 'a b.test.ts'), '');
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const runner = (cmd: string) => new ProcessTestRunner({ root: dir, nodeTestReporter: 'unused', commandOverride: cmd });

  it('runs the command with the rendered test files appended, safely quoted, and passes on exit 0', async () => {
    const r = await runner(`${JSON.stringify(process.execPath)} check.js`).run(
      { framework: 'node:test', files: ['a b.test.ts'], timeoutMs: 20_000 },
      new AbortController().signal,
    );
    assert.equal(r.status, 'passed');
    assert.match(r.output, /checked a b\.test\.ts/);
    assert.deepEqual(r.cases, []);
  });

  it('fails on a non-zero exit, saying that there is no per-test report', async () => {
    const r = await runner(`${JSON.stringify(process.execPath)} check.js`).run(
      { framework: 'node:test', files: ['missing.test.ts'], timeoutMs: 20_000 },
      new AbortController().signal,
    );
    assert.equal(r.status, 'failed');
    assert.match(r.output, /exited with 1; no per-test report/);
  });

  /** A stand-in for `jest --json --outputFile=$TICKET_RUNNER_REPORT`: writes the given cases, then exits with the given code. */
  const reporting = (statuses: string[], exitCode: number) => {
    const report = {
      testResults: [
        {
          name: path.join(dir, 'a b.test.ts'),
          status: statuses.includes('failed') ? 'failed' : 'passed',
          assertionResults: statuses.map((status, i) => ({
            ancestorTitles: ['suite'],
            title: `case ${i + 1}`,
            status,
            failureMessages: status === 'failed' ? ['Error: boom\n    at x (a b.test.ts:1:1)'] : [],
          })),
        },
      ],
    };
    writeFileSync(
      path.join(dir, 'report.js'),
      `require('fs').writeFileSync(process.env.TICKET_RUNNER_REPORT, ${JSON.stringify(JSON.stringify(report))}); process.exit(${exitCode});\n`,
    );
    return runner(`${JSON.stringify(process.execPath)} report.js`).run(
      { framework: 'node:test', files: ['a b.test.ts'], timeoutMs: 20_000 },
      new AbortController().signal,
    );
  };

  it('reads the JSON report the command writes to $TICKET_RUNNER_REPORT, case by case', async () => {
    const failed = await reporting(['passed', 'failed'], 1);
    assert.equal(failed.status, 'failed');
    assert.deepEqual(
      failed.cases.map((c) => [c.file, c.name, c.status]),
      [
        ['a b.test.ts', 'suite > case 1', 'passed'],
        ['a b.test.ts', 'suite > case 2', 'failed'],
      ],
    );
    assert.equal(failed.cases[1]?.message, 'Error: boom');
    const passed = await reporting(['passed'], 0);
    assert.deepEqual([passed.status, passed.passed], ['passed', 1]);
  });

  it('never passes on the report alone: every case passed but the command exited 1 is an error, and a failing case fails a command that exited 0', async () => {
    const lying = await reporting(['passed', 'passed'], 1);
    assert.equal(lying.status, 'error');
    assert.match(lying.output, /every test passed but the runner exited with 1/);
    assert.equal((await reporting(['failed'], 0)).status, 'failed');
    assert.equal((await reporting([], 0)).status, 'error');
  });

  it('kills a command that hangs, as a timeout', async () => {
    const r = await runner('sleep 30').run({ framework: 'node:test', files: [], timeoutMs: 500 }, new AbortController().signal);
    assert.equal(r.status, 'timeout');
  });
});
