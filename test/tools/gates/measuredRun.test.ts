import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { ProjectCoverageRunner } from '../../../src/node/gates/coverageRunner';
import { ProcessJail } from '../../../src/node/sandbox/processJail';
import { copyFixture, REPO_ROOT } from '../../support/tempWorkspace';

/**
 * The run that judges an attempt gets its tests' result back as soon as they end, and V8's
 * measure is read after, while the run goes on to its next check (whose commands run code under
 * test). What is read must be what the tests ran: a measured file changed after the tests, by
 * anything, must not change the measure. Real tests on blog-api, through the run's jail.
 */

const NEVER = 'export function never(n: number): number {\n  if (n > 1) {\n    return n * 2;\n  }\n  return 0;\n}\n';
const TEST =
  "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { parsePaginationParams } from '../../src/utils/pagination';\n\ntest('pages', () => {\n  assert.equal(parsePaginationParams({ page: '2' }).page, PAGE);\n});\n";

describe('gates: a measured run whose measure is read after its tests end', function () {
  this.timeout(120_000);
  let ws: { root: string; dispose: () => void };
  let jail: ProcessJail;
  let runner: ProjectCoverageRunner;
  const signal = new AbortController().signal;
  const request = {
    framework: 'node:test' as const,
    files: ['test/ticket/T-1.test.ts'],
    timeoutMs: 60_000,
    measure: ['src/never.ts', 'src/utils/pagination.ts'],
  };

  beforeEach(async () => {
    ws = copyFixture('blog-api');
    writeFileSync(path.join(ws.root, 'src', 'never.ts'), NEVER);
    jail = await ProcessJail.open({ root: ws.root, protect: [path.join(ws.root, '.tickets')], parentEnv: process.env });
    runner = new ProjectCoverageRunner({
      root: ws.root,
      nodeTestReporter: path.join(REPO_ROOT, 'dist', 'nodeTestReporter.mjs'),
      fallbackDir: REPO_ROOT,
      nodePath: process.execPath,
      jail,
    });
  });
  afterEach(async () => {
    await jail.dispose();
    ws.dispose();
  });

  const writeTest = (page: number) => {
    mkdirSync(path.join(ws.root, 'test', 'ticket'), { recursive: true });
    writeFileSync(path.join(ws.root, 'test', 'ticket', 'T-1.test.ts'), TEST.replace('PAGE', String(page)));
  };

  it('hostile: a measured file rewritten as types only once the tests ended still counts as the tests ran it: every line of it at 0', async () => {
    writeTest(2);
    const run = await runner.measuredRun(request, signal);
    assert.equal(run.tests?.status, 'passed', run.tests?.output);
    // What a later command's code under test could do while the measure is read.
    writeFileSync(path.join(ws.root, 'src', 'never.ts'), 'export type Never = number;\n');
    const measured = await run.coverage;
    assert.equal(measured.status, 'measured', measured.detail);
    assert.equal(measured.tests, run.tests);
    assert.deepEqual(measured.unloaded, ['src/never.ts']);
    const never = measured.files.find((f) => f.file === 'src/never.ts')?.lines ?? [];
    assert.ok(
      never.some(([line]) => line === 3) && never.every(([, count]) => count === 0),
      `never.ts's body, as the tests ran it, at 0: ${JSON.stringify(never)}`,
    );
    const pages = new Map(measured.files.find((f) => f.file === 'src/utils/pagination.ts')?.lines);
    assert.ok((pages.get(16) ?? 0) > 0, `the tested function's lines ran: ${JSON.stringify([...pages])}`);
  });

  it('tests that fail leave no measure to read: the result says failed, and the measure has no files', async () => {
    writeTest(3);
    const run = await runner.measuredRun(request, signal);
    assert.equal(run.tests?.status, 'failed');
    const measured = await run.coverage;
    assert.equal(measured.tests, run.tests);
    assert.deepEqual(measured.files, []);
  });

  it('hostile: tests that remove the coverage folder (no sandbox to stop them) get an unusable measure, never a crash of the run', async () => {
    writeTest(2);
    const remover =
      "import { rmSync } from 'node:fs';\nrmSync(process.env.NODE_V8_COVERAGE ?? '/nonexistent', { recursive: true, force: true });\n";
    writeFileSync(path.join(ws.root, 'test', 'ticket', 'T-1.test.ts'), remover + TEST.replace('PAGE', '2'));
    const bare = new ProjectCoverageRunner({
      root: ws.root,
      nodeTestReporter: path.join(REPO_ROOT, 'dist', 'nodeTestReporter.mjs'),
      fallbackDir: REPO_ROOT,
      nodePath: process.execPath,
    });
    const run = await bare.measuredRun(request, signal);
    assert.equal(run.tests?.status, 'passed', run.tests?.output);
    const measured = await run.coverage;
    assert.equal(measured.status, 'error', JSON.stringify(measured.files));
    assert.match(measured.detail ?? '', /V8's coverage data cannot be used/);
  });

  it('run, as the coverage gate calls it: the same measure, read before it returns', async () => {
    writeTest(2);
    const measured = await runner.run(request, signal);
    assert.equal(measured.status, 'measured', measured.detail);
    assert.deepEqual(measured.unloaded, ['src/never.ts']);
    assert.ok((new Map(measured.files.find((f) => f.file === 'src/utils/pagination.ts')?.lines).get(16) ?? 0) > 0);
  });
});
