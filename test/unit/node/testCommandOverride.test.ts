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
    writeFileSync(path.join(dir, 'check.js'), "const fs = require('fs'); const missing = process.argv.slice(2).filter((f) => !fs.existsSync(f)); console.log('checked ' + process.argv.slice(2).join(',')); process.exit(missing.length ? 1 : 0);\n");
    writeFileSync(path.join(dir, 'a b.test.ts'), '');
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const runner = (cmd: string) => new ProcessTestRunner({ root: dir, nodeTestReporter: 'unused', commandOverride: cmd });

  it('runs the command with the rendered test files appended, safely quoted, and passes on exit 0', async () => {
    const r = await runner(`${JSON.stringify(process.execPath)} check.js`).run({ framework: 'node:test', files: ['a b.test.ts'], timeoutMs: 20_000 }, new AbortController().signal);
    assert.equal(r.status, 'passed');
    assert.match(r.output, /checked a b\.test\.ts/);
    assert.deepEqual(r.cases, []);
  });

  it('fails on a non-zero exit, saying that there is no per-test report', async () => {
    const r = await runner(`${JSON.stringify(process.execPath)} check.js`).run({ framework: 'node:test', files: ['missing.test.ts'], timeoutMs: 20_000 }, new AbortController().signal);
    assert.equal(r.status, 'failed');
    assert.match(r.output, /exited with 1; no per-test report/);
  });

  it('kills a command that hangs, as a timeout', async () => {
    const r = await runner('sleep 30').run({ framework: 'node:test', files: [], timeoutMs: 500 }, new AbortController().signal);
    assert.equal(r.status, 'timeout');
  });
});
