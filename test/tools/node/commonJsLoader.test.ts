import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { commonJsOnly, MAX_FILES } from '../../../src/node/testRunners/commonJsLoader';
import { ProcessTestRunner } from '../../../src/node/testRunners/testRunner';
import { buildReporter, neverAborted, repoRoot, TempProject } from '../../support/tempProject';

/** A CommonJS TypeScript project whose test loads its module the way `body` says. */
function project(body: string, extra: Record<string, string> = {}): TempProject {
  return new TempProject({
    'package.json': '{ "name": "loader", "private": true }',
    'src/late.ts': 'export const late: number = 2;\n',
    'test/late.test.ts': `import { test } from 'node:test';\nimport assert from 'node:assert/strict';\n${body}\n`,
    ...extra,
  });
}

/** Which of tsx's entry points a node:test command loads. */
function loaderOf(command: readonly string[]): 'tsx/cjs' | 'import tsx' | 'both' | 'none' {
  const cjs = command.some((a, i) => command[i - 1] === '--require' && /[\\/]tsx[\\/]dist[\\/]cjs[\\/]/.test(a));
  const esm = command.some((a, i) => command[i - 1] === '--import' && /[\\/]tsx[\\/]/.test(a));
  return cjs && esm ? 'both' : cjs ? 'tsx/cjs' : esm ? 'import tsx' : 'none';
}

const DYNAMIC = "test('loads late', async () => { const m = await import('../src/late.ts'); assert.equal(m.late, 2); });";
const STATIC = "import { late } from '../src/late';\ntest('loads late', () => { assert.equal(late, 2); });";

describe('the loader of node:test runs: tsx CommonJS hook only when nothing needs ES modules', function () {
  this.timeout(60_000);
  let reporterDir: string;
  let reporter: string;

  before(async () => {
    // Outside every project, as the extension's dist/ is: an .mjs inside would change the choice.
    reporterDir = mkdtempSync(join(tmpdir(), 'ticket-runner-reporter-'));
    reporter = await buildReporter(join(reporterDir, 'nodeTestReporter.mjs'));
  });
  after(() => rmSync(reporterDir, { recursive: true, force: true }));

  const run = async (p: TempProject) => {
    const runner = new ProcessTestRunner({ root: p.root, nodeTestReporter: reporter, fallbackDir: repoRoot, nodePath: process.execPath });
    try {
      return await runner.run({ framework: 'node:test', files: ['test/late.test.ts'], timeoutMs: 30_000 }, neverAborted());
    } finally {
      runner.dispose();
    }
  };

  it('a test that imports TypeScript through import() still passes: the run keeps --import tsx, under which alone it can', async () => {
    const p = project(DYNAMIC);
    try {
      // The bad answer first: under the CommonJS hook alone this very test fails.
      const tsxCjs = require.resolve('tsx/cjs', { paths: [repoRoot] });
      const cjs = spawnSync(process.execPath, ['--require', tsxCjs, '--test', 'test/late.test.ts'], { cwd: p.root, encoding: 'utf8' });
      assert.notEqual(cjs.status, 0, 'the CommonJS hook alone was expected to fail this test');
      assert.match(cjs.stdout + cjs.stderr, /ERR_UNKNOWN_FILE_EXTENSION|Unknown file extension/);

      const result = await run(p);
      assert.equal(result.status, 'passed', result.output);
      assert.deepEqual([result.passed, result.failed], [1, 0]);
      assert.equal(loaderOf(result.command), 'import tsx', result.command.join(' '));
    } finally {
      p.remove();
    }
  });

  it('a CommonJS project with static imports runs under the CommonJS hook alone, with the same cases', async () => {
    const p = project(STATIC);
    try {
      const result = await run(p);
      assert.equal(result.status, 'passed', result.output);
      assert.deepEqual(
        result.cases.map((c) => [c.name, c.status]),
        [['loads late', 'passed']],
      );
      assert.equal(loaderOf(result.command), 'tsx/cjs', result.command.join(' '));
      // A failing test still fails under it, with its stack mapped to the TypeScript source.
      p.write(
        'test/late.test.ts',
        `import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { late } from '../src/late';\ntest('loads late', () => { assert.equal(late, 3); });\n`,
      );
      const failed = await run(p);
      assert.equal(failed.status, 'failed');
      assert.match(failed.cases[0]?.stack ?? '', /late\.test\.ts:4/);
    } finally {
      p.remove();
    }
  });

  it('a later change that adds import() to a source switches the next run back to --import tsx', async () => {
    const p = project(STATIC, { 'src/index.ts': "export const lazy = () => import('./late');\n" });
    try {
      assert.equal(await commonJsOnly(p.root, ['test/late.test.ts']), false);
      p.write('src/index.ts', 'export const lazy = () => 1;\n');
      assert.equal(await commonJsOnly(p.root, ['test/late.test.ts']), true);
    } finally {
      p.remove();
    }
  });

  it('anything that could need ES modules keeps --import tsx', async () => {
    const cases: [string, Record<string, string>, string[]?][] = [
      [
        'a package.json below the root that says "type": "module"',
        { 'pkg/package.json': '{ "type": "module" }', 'pkg/a.ts': 'export {};\n' },
      ],
      ['a root package.json that says "type": "module"', { 'package.json': '{ "name": "loader", "type": "module" }' }],
      ['an unreadable package.json', { 'pkg/package.json': '{ type: module' }],
      ['an .mts anywhere', { 'src/esm.mts': 'export const e = 1;\n' }],
      ['an .mjs anywhere', { 'scripts/tool.mjs': 'export const e = 1;\n' }],
      ['import( in a comment', { 'src/note.js': '// later: import("./late")\n' }],
      ['an .mts test file', {}, ['test/late.test.mts']],
    ];
    for (const [what, files, tests] of cases) {
      const p = project(STATIC, files);
      try {
        assert.equal(await commonJsOnly(p.root, tests ?? ['test/late.test.ts']), false, what);
      } finally {
        p.remove();
      }
    }
    // No package.json of its own: one above the workspace would decide, unseen.
    const bare = new TempProject({ 'test/late.test.ts': STATIC });
    try {
      assert.equal(await commonJsOnly(bare.root, ['test/late.test.ts']), false);
    } finally {
      bare.remove();
    }
    // More files than it reads.
    const many: Record<string, string> = {};
    for (let i = 0; i <= MAX_FILES; i++) many[`src/gen/f${i}.ts`] = `export const f${i} = ${i};\n`;
    const big = project(STATIC, many);
    try {
      assert.equal(await commonJsOnly(big.root, ['test/late.test.ts']), false);
    } finally {
      big.remove();
    }
  });

  it('node_modules is not read: a dependency with import() leaves the choice to the workspace', async () => {
    const p = project(STATIC, {
      'node_modules/dep/index.js': 'module.exports = () => import("x");\n',
      'node_modules/dep/package.json': '{ "type": "module" }',
    });
    try {
      assert.equal(await commonJsOnly(p.root, ['test/late.test.ts']), true);
    } finally {
      p.remove();
    }
  });
});
