import assert from 'node:assert/strict';
import { appendFileSync, cpSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { JudgingTools } from '../../../src/node/testRunners/judgingTools';
import { ProcessTestRunner } from '../../../src/node/testRunners/testRunner';
import { buildReporter, neverAborted, repoRoot, TempProject } from '../../support/tempProject';

/**
 * The record of the tools that judge the tests, against real node:test commands in a project
 * with an install of tsx of its own. A change is made here by the test itself, between two
 * commands or while one runs: as a process an earlier command left behind would make it. Which
 * process made it does not matter: every command that saw it is void.
 */
describe('JudgingTools: the installed runner, looked at around every test command', function () {
  this.timeout(60_000);
  let project: TempProject;
  let reporter: string;
  const loader = () => project.path('node_modules/tsx/dist/cjs/index.cjs');
  let installed: string;

  beforeEach(async () => {
    project = new TempProject({
      'package.json': '{ "name": "sample", "private": true }',
      'test/ok.test.mjs': "import { test } from 'node:test';\ntest('fine', () => {});\n",
      // Long enough for the test to write while it runs.
      'test/slow.test.mjs':
        "import { test } from 'node:test';\ntest('slow', async () => { await new Promise((r) => setTimeout(r, 1500)); });\n",
    });
    mkdirSync(project.path('node_modules'));
    cpSync(path.join(repoRoot, 'node_modules', 'tsx'), project.path('node_modules/tsx'), { recursive: true, dereference: true });
    symlinkSync(path.join(repoRoot, 'node_modules', 'esbuild'), project.path('node_modules/esbuild'));
    installed = readFileSync(loader(), 'utf8');
    reporter = await buildReporter(project.path('dist/nodeTestReporter.mjs'));
  });
  afterEach(() => project.remove());

  const runnerWith = (tools: JudgingTools) =>
    new ProcessTestRunner({ root: project.root, nodeTestReporter: reporter, nodePath: process.execPath, judgingTools: tools });
  const run = (runner: ProcessTestRunner, file: string) =>
    runner.run({ framework: 'node:test', files: [file], timeoutMs: 30_000 }, neverAborted());

  it('a change made between two commands voids the next one, whatever made it, and is put back and checked against its hash', async () => {
    const tools = new JudgingTools(project.root, { sandboxed: false });
    const runner = runnerWith(tools);
    assert.equal((await run(runner, 'test/ok.test.mjs')).status, 'passed');
    assert.ok(tools.size().files > 10, 'tsx and esbuild are recorded');
    appendFileSync(loader(), '\nrequire("node:test").it = () => undefined;\n');
    const voided = await run(runner, 'test/ok.test.mjs');
    assert.equal(voided.status, 'error', 'a passing run on a changed runner is void');
    assert.deepEqual(voided.judgingTools, [{ path: 'node_modules/tsx/dist/cjs/index.cjs', change: 'modified', restored: true }]);
    assert.equal(readFileSync(loader(), 'utf8'), installed);
    assert.equal((await run(runner, 'test/ok.test.mjs')).status, 'passed', 'the next command, on the runner as installed, counts');
    runner.dispose();
  });

  it('a change made while a command runs voids that command, though its own code wrote nothing', async () => {
    const tools = new JudgingTools(project.root, { sandboxed: false });
    const runner = runnerWith(tools);
    const running = run(runner, 'test/slow.test.mjs');
    await new Promise((r) => setTimeout(r, 700));
    writeFileSync(project.path('node_modules/tsx/package.json'), '{ "name": "tsx", "main": "./planted.js" }');
    const voided = await running;
    assert.equal(voided.status, 'error');
    assert.deepEqual(
      voided.judgingTools?.map((c) => [c.path, c.change, c.restored]),
      [['node_modules/tsx/package.json', 'modified', true]],
    );
    assert.match(
      voided.output,
      /the test runner was changed by the code under test; put back as installed, but this result was the changed runner's and does not count/,
    );
    runner.dispose();
  });

  it('a file planted where Node would load it before the package (node_modules/tsx.js) is found and removed', async () => {
    const tools = new JudgingTools(project.root, { sandboxed: false });
    const runner = runnerWith(tools);
    await run(runner, 'test/ok.test.mjs');
    writeFileSync(project.path('node_modules/tsx.js'), 'module.exports = {};\n');
    const voided = await run(runner, 'test/ok.test.mjs');
    assert.deepEqual(voided.judgingTools, [{ path: 'node_modules/tsx.js', change: 'created', restored: true }]);
    assert.equal(existsSync(project.path('node_modules/tsx.js')), false);
    runner.dispose();
  });

  it('a change with no copy to put back: every later command is void without running, until the file is as recorded again', async () => {
    const tools = new JudgingTools(project.root, { sandboxed: false, copyBudget: 0 });
    const runner = runnerWith(tools);
    await run(runner, 'test/ok.test.mjs');
    appendFileSync(loader(), '\n// changed\n');
    const first = await run(runner, 'test/ok.test.mjs');
    assert.equal(first.status, 'error');
    assert.deepEqual(first.judgingTools, [{ path: 'node_modules/tsx/dist/cjs/index.cjs', change: 'modified', restored: false }]);
    const next = await run(runner, 'test/ok.test.mjs');
    assert.equal(next.status, 'error');
    assert.deepEqual(next.command, [], 'not run at all');
    assert.match(
      next.output,
      /not run: the test runner was changed by the code under test and could not be restored; reinstall \(npm ci\) and run again: modified node_modules\/tsx\/dist\/cjs\/index\.cjs/,
    );
    const unrestored = await runner.unrestoredTools();
    assert.deepEqual(
      unrestored.map((f) => [f.path, f.change]),
      [['node_modules/tsx/dist/cjs/index.cjs', 'modified']],
    );
    assert.deepEqual(await runner.stillChangedTools(unrestored), unrestored, 'resume would refuse');
    writeFileSync(loader(), installed);
    assert.deepEqual(await runner.stillChangedTools(unrestored), [], 'reinstalled: resume may go on');
    assert.deepEqual(await runner.unrestoredTools(), [], 'and the run sees it as recorded');
    runner.dispose();
  });

  it('with the sandbox, only what a sandboxed command can write is recorded: not a package linked from outside the workspace, nor a read-only one', async () => {
    const tools = new JudgingTools(project.root, { sandboxed: true, readOnly: [project.path('node_modules/tsx')] });
    await tools.record('node:test', [project.root]);
    assert.equal(tools.size().files, 0);
    const open = new JudgingTools(project.root, { sandboxed: true });
    await open.record('node:test', [project.root]);
    assert.ok(open.size().files > 10, 'a writable tsx of the workspace is recorded');
    assert.ok(open.size().bytes < 8 * 1024 * 1024, 'the linked esbuild is not');
  });

  it('with the sandbox, the folder a read-only package was found in is still looked at: a file planted there, which Node would load before a package tsx requires, is removed', async () => {
    // node_modules is writable in the sandbox (the runners write their caches there); tsx, a mount, is not.
    const tools = new JudgingTools(project.root, { sandboxed: true, readOnly: [project.path('node_modules/tsx')] });
    await tools.record('node:test', [project.root]);
    writeFileSync(project.path('node_modules/esbuild.js'), 'module.exports = {};\n');
    assert.deepEqual(await tools.look(), [{ path: 'node_modules/esbuild.js', change: 'created', sha256: null, restored: true }]);
    assert.equal(existsSync(project.path('node_modules/esbuild.js')), false);
  });
});

describe("JudgingTools: each runner's tools, found as Node resolves them", () => {
  // This repository's own install, read only: nothing here writes it.
  for (const [framework, expected] of [
    [
      'jest',
      [
        'node_modules/jest-circus',
        'node_modules/co',
        'node_modules/is-generator-fn',
        'node_modules/expect',
        'node_modules/ts-jest',
        'node_modules/typescript',
      ],
    ],
    [
      'vitest',
      [
        'node_modules/vitest',
        'node_modules/@vitest/runner',
        'node_modules/@vitest/expect',
        'node_modules/chai',
        'node_modules/tinyrainbow',
        'node_modules/pathe',
        'node_modules/vite',
      ],
    ],
    ['mocha', ['node_modules/mocha', 'node_modules/ms', 'node_modules/diff', 'node_modules/tsx', 'node_modules/esbuild']],
    ['node:test', ['node_modules/tsx', 'node_modules/esbuild']],
  ] as const) {
    it(`${framework}: the runner and the packages it requires`, async () => {
      const tools = new JudgingTools(repoRoot, { sandboxed: false });
      await tools.record(framework, [repoRoot]);
      const packages = tools.packages();
      for (const p of expected) assert.ok(packages.includes(p), `${p} among ${packages.length}: ${packages.slice(0, 20).join(', ')}`);
    });
  }
});
