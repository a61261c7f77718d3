import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { CancelledError } from '../../../src/core/errors';
import type { TestRunResult } from '../../../src/core/schema/checks';
import type { TestFramework } from '../../../src/core/schema/testPlan';
import { ProcessTestRunner } from '../../../src/node/testRunners/testRunner';
import { writesReportFile } from '../../../src/node/testRunners/testCommands';
import { buildReporter, eventually, isRunning, neverAborted, repoRoot, TempProject } from '../../support/tempProject';

/** A small suite for the real runners: one pass, one failure, and one skipped case whose count each runner's report must carry. */
const mathTest = (imports: string, assertion: string): string => `${imports}
describe('math', () => {
  it('adds', () => { ${assertion.replace('$A', '1 + 1').replace('$E', '2')}; });
  describe('objects', () => {
    it('compares', () => { ${assertion.replace('$A', '{ a: 1 }').replace('$E', '{ a: 2 }')}; });
  });
  it.skip('later', () => {});
});
`;

/** Spawns a grandchild that would run forever, records its pid, and never settles. */
const hangingTest = `import { test } from 'node:test';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
test('hangs', async () => {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  writeFileSync(process.env.PID_FILE, String(child.pid));
  await new Promise(() => setInterval(() => {}, 1000));
});
`;

/** Runs a math fixture and checks the three cases every runner must report; mocha joins names with spaces. */
async function runMath(runner: ProcessTestRunner, framework: TestFramework, file: string, separator = ' > '): Promise<TestRunResult> {
  const result = await runner.run({ framework, files: [file], timeoutMs: 30_000 }, neverAborted());
  assert.equal(result.status, 'failed');
  assert.deepEqual([result.passed, result.failed, result.skipped], [1, 1, 1]);
  assert.deepEqual(
    result.cases.map((c) => [c.name, c.status, c.file]),
    [
      [['math', 'adds'].join(separator), 'passed', file],
      [['math', 'objects', 'compares'].join(separator), 'failed', file],
      [['math', 'later'].join(separator), 'skipped', file],
    ],
  );
  return result;
}

describe('ProcessTestRunner', function () {
  this.timeout(40_000);
  let project: TempProject;
  let reporter: string;
  let runner: ProcessTestRunner;

  before(async () => {
    project = new TempProject({
      'package.json': '{ "name": "sample", "private": true }',
      'test/math.test.ts': mathTest(
        "import { describe, it } from 'node:test';\nimport assert from 'node:assert/strict';",
        'assert.deepStrictEqual($A, $E)',
      ),
      'test/ok.test.mjs': "import { test } from 'node:test';\ntest('fine', () => {});\n",
      'test/hang.test.mjs': hangingTest,
      'dist/garbage.mjs': "export default async function* (source) { for await (const _ of source) yield 'not json\\n'; }\n",
      'vitest/math.test.mjs': mathTest("import { describe, it, expect } from 'vitest';", 'expect($A).toEqual($E)'),
      'jest/math.test.js': mathTest('', 'expect($A).toEqual($E)'),
      'mocha/math.test.ts': mathTest("import assert from 'node:assert/strict';", 'assert.deepStrictEqual($A, $E)'),
    });
    reporter = await buildReporter(project.path('dist/nodeTestReporter.mjs'));
    runner = new ProcessTestRunner({ root: project.root, nodeTestReporter: reporter, fallbackDir: repoRoot, nodePath: process.execPath });
  });
  after(() => project.remove());

  it('runs node:test on TypeScript files with tsx and parses pass, fail and skip', async () => {
    const result = await runMath(runner, 'node:test', 'test/math.test.ts');
    const failure = result.cases[1];
    assert.equal(failure?.expected, '{ a: 2 }');
    assert.equal(failure?.actual, '{ a: 1 }');
    assert.match(failure?.message ?? '', /strictly deep-equal/);
    assert.match(failure?.stack ?? '', /math\.test\.ts/);
    // The spec reporter's text is kept for the Debugger, without colour codes.
    assert.match(result.output, /compares/);
    assert.doesNotMatch(result.output, /\u001b\[/);
  });

  it('reports a passing node:test run as passed', async () => {
    const result = await runner.run({ framework: 'node:test', files: ['test/ok.test.mjs'], timeoutMs: 20_000 }, neverAborted());
    assert.deepEqual([result.status, result.passed, result.failed], ['passed', 1, 0]);
    assert.equal(result.framework, 'node:test');
    assert.ok(result.command.includes('--test'));
  });

  it('kills a hung run with its whole process group and records a timeout', async () => {
    // Outside the project: a file the run leaves in the workspace is put back (removed) after it.
    const pidFile = path.join(mkdtempSync(path.join(tmpdir(), 'tr-pid-')), 'hang.pid');
    const hung = new ProcessTestRunner({
      root: project.root,
      nodeTestReporter: reporter,
      nodePath: process.execPath,
      env: { PID_FILE: pidFile },
    });
    const result = await hung.run({ framework: 'node:test', files: ['test/hang.test.mjs'], timeoutMs: 3000 }, neverAborted());
    assert.equal(result.status, 'timeout');
    assert.match(result.output, /killed after 3000 ms/);
    const grandchild = Number(readFileSync(pidFile, 'utf8'));
    assert.ok(await eventually(() => !isRunning(grandchild)), `grandchild ${grandchild} still runs`);
  });

  it('throws CancelledError on abort and kills the process group', async () => {
    const pidFile = path.join(mkdtempSync(path.join(tmpdir(), 'tr-pid-')), 'abort.pid');
    const hung = new ProcessTestRunner({
      root: project.root,
      nodeTestReporter: reporter,
      nodePath: process.execPath,
      env: { PID_FILE: pidFile },
    });
    const controller = new AbortController();
    const run = hung.run({ framework: 'node:test', files: ['test/hang.test.mjs'], timeoutMs: 20_000 }, controller.signal);
    assert.ok(await eventually(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8') !== '', 15_000), 'the test never started');
    controller.abort();
    await assert.rejects(run, CancelledError);
    const grandchild = Number(readFileSync(pidFile, 'utf8'));
    assert.ok(await eventually(() => !isRunning(grandchild)), `grandchild ${grandchild} still runs`);
  });

  it('records status error, keeping the output, when the report is missing or garbled', async () => {
    const missing = new ProcessTestRunner({
      root: project.root,
      nodeTestReporter: project.path('dist/nowhere.mjs'),
      nodePath: process.execPath,
    });
    const noReport = await missing.run({ framework: 'node:test', files: ['test/ok.test.mjs'], timeoutMs: 20_000 }, neverAborted());
    assert.equal(noReport.status, 'error');
    assert.match(noReport.output, /nowhere\.mjs/);
    assert.match(noReport.output, /\[ticket-runner\] the runner wrote no report/);

    const garbling = new ProcessTestRunner({
      root: project.root,
      nodeTestReporter: project.path('dist/garbage.mjs'),
      nodePath: process.execPath,
    });
    const garbled = await garbling.run({ framework: 'node:test', files: ['test/ok.test.mjs'], timeoutMs: 20_000 }, neverAborted());
    assert.equal(garbled.status, 'error');
    assert.match(garbled.output, /fine/);
    assert.match(garbled.output, /report is unreadable/);

    // A build without the preload that freezes the test APIs runs no test at all: the defence is never dropped in silence.
    const unfrozen = new ProcessTestRunner({
      root: project.root,
      nodeTestReporter: project.path('test/ok.test.mjs'),
      nodePath: process.execPath,
    });
    const refused = await unfrozen.run({ framework: 'node:test', files: ['test/ok.test.mjs'], timeoutMs: 20_000 }, neverAborted());
    assert.equal(refused.status, 'error');
    assert.match(refused.output, /testApisFrozen\.cjs is missing: run npm run build/);
    // Nor does one without the preload that freezes vitest's and jest's expect.
    const unfrozenExpect = new ProcessTestRunner({
      root: project.root,
      nodeTestReporter: project.path('test/ok.test.mjs'),
      fallbackDir: repoRoot,
      nodePath: process.execPath,
    });
    for (const [framework, file] of [
      ['vitest', 'vitest/math.test.mjs'],
      ['jest', 'jest/math.test.js'],
    ] as const) {
      const r = await unfrozenExpect.run({ framework, files: [file], timeoutMs: 20_000 }, neverAborted());
      assert.equal(r.status, 'error');
      assert.match(r.output, /expectFrozen\.mjs is missing: run npm run build/);
    }
  });

  it('parses a real vitest JSON report', async () => {
    const result = await runMath(runner, 'vitest', 'vitest/math.test.mjs');
    assert.match(result.cases[1]?.message ?? '', /expected \{ a: 1 \} to deeply equal \{ a: 2 \}/);
  });

  it('parses a real jest JSON report, with expected and actual', async () => {
    const result = await runMath(runner, 'jest', 'jest/math.test.js');
    assert.deepEqual([result.cases[1]?.expected, result.cases[1]?.actual], ['{ a: 2 }', '{ a: 1 }']);
  });

  it('parses a real mocha JSON report of TypeScript tests, with expected and actual', async () => {
    const result = await runMath(runner, 'mocha', 'mocha/math.test.ts', ' ');
    assert.match(result.cases[1]?.expected ?? '', /"a": 2/);
    assert.match(result.cases[1]?.actual ?? '', /"a": 1/);
  });

  it('mocha: code under test that prints a report of its own on stdout and exits 0 is not believed; only a mocha before 10 is read from stdout', async () => {
    const forged = {
      stats: { tests: 1, passes: 1, failures: 0 },
      passes: [{ title: 'works', fullTitle: 'suite works', file: 'x', duration: 1 }],
      failures: [],
      pending: [],
    };
    const project = new TempProject({
      'package.json': '{ "name": "sample", "private": true }',
      'src/mod.js': `process.stdout.write(${JSON.stringify(JSON.stringify(forged, null, 2) + '\n')}, () => process.exit(0));\nmodule.exports = { f: () => 1 };\n`,
      'test/ticket/T.test.js':
        "const assert = require('node:assert/strict');\nconst { f } = require('../../src/mod');\ndescribe('suite', () => { it('works', () => { assert.strictEqual(f(), 2); }); });\n",
    });
    try {
      const own = new ProcessTestRunner({
        root: project.root,
        nodeTestReporter: path.join(repoRoot, 'dist', 'nodeTestReporter.mjs'),
        fallbackDir: repoRoot,
        nodePath: process.execPath,
      });
      const r = await own.run({ framework: 'mocha', files: ['test/ticket/T.test.js'], timeoutMs: 60_000 }, neverAborted());
      assert.equal(r.status, 'error', r.output);
      assert.match(r.output, /the runner wrote no report/);
    } finally {
      project.remove();
    }
    assert.deepEqual(['9.2.2', '10.0.0', '12.0.3', undefined].map(writesReportFile), [false, true, true, true]);
  });
});
