import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import * as path from 'node:path';
import { CancelledError } from '../../../src/core/errors';
import { EslintLinter } from '../../../src/node/lint/eslintLinter';
import { ProcessJail } from '../../../src/node/sandbox/processJail';
import { hostileEslintConfig, LINT_CANARY, outsidePaths } from '../../support/hostileCode';
import { copyFixture } from '../../support/tempWorkspace';
import { buildLintWorker, eventually, neverAborted, repoRoot, TempProject } from '../../support/tempProject';

const config = "export default [{ files: ['**/*.js'], rules: { 'no-unused-vars': 'error', 'prefer-const': 'warn' } }];\n";

describe('EslintLinter', function () {
  this.timeout(60_000);
  let project: TempProject;
  let workerScript: string;
  let linter: EslintLinter | undefined;
  before(async () => {
    workerScript = await buildLintWorker(path.join(mkdtempSync(path.join(tmpdir(), 'tr-worker-')), 'eslintWorker.js'));
  });
  after(() => rmSync(path.dirname(workerScript), { recursive: true, force: true }));
  afterEach(() => {
    linter?.dispose();
    linter = undefined;
    project.remove();
  });
  const make = (o: { fallback?: boolean; timeoutMs?: number } = {}) =>
    (linter = new EslintLinter(project.root, {
      workerScript,
      nodePath: process.execPath,
      ...(o.fallback === false ? {} : { fallbackDir: repoRoot }),
      ...(o.timeoutMs ? { timeoutMs: o.timeoutMs } : {}),
    }));

  it('skips a workspace without an ESLint config', async () => {
    project = new TempProject({ 'src/a.js': 'const unused = 1;\n' });
    const result = await make().lint(['src/a.js'], neverAborted());
    assert.equal(result.status, 'skipped');
    assert.match(result.detail ?? '', /no ESLint config/);
  });

  it('skips a workspace with a config but no eslint installed', async () => {
    project = new TempProject({ 'eslint.config.mjs': config, 'src/a.js': 'const unused = 1;\n' });
    const result = await make({ fallback: false }).lint(['src/a.js'], neverAborted());
    assert.equal(result.status, 'skipped');
    assert.match(result.detail ?? '', /no eslint installed/);
  });

  it('runs the workspace config with a real ESLint and reports its problems', async () => {
    project = new TempProject({
      'eslint.config.mjs': config,
      'src/a.js': 'export function f() {\n  let unused = 1;\n  return 2;\n}\n',
      'src/clean.js': 'export const two = 1 + 1;\n',
    });
    const linter = make();
    const failed = await linter.lint(['src/a.js', 'src/clean.js'], neverAborted());
    assert.equal(failed.status, 'failed');
    assert.deepEqual(
      failed.problems.map((p) => [p.file, p.line, p.column, p.rule, p.severity]),
      [
        ['src/a.js', 2, 7, 'no-unused-vars', 'error'],
        ['src/a.js', 2, 7, 'prefer-const', 'warning'],
      ],
    );
    const passed = await linter.lint(['src/clean.js'], neverAborted());
    assert.deepEqual(passed, { status: 'passed', problems: [] });
  });

  it('picks up a config, and a local rule module it imports, that change between calls', async () => {
    project = new TempProject({
      'eslint.config.mjs':
        "import level from './level.mjs';\nexport default [{ files: ['**/*.js'], rules: { 'no-unused-vars': level } }];\n",
      'level.mjs': "export default 'warn';\n",
      'src/a.js': 'export function f() {\n  const unused = 1;\n  return 2;\n}\n',
    });
    const linter = make();
    assert.deepEqual(
      (await linter.lint(['src/a.js'], neverAborted())).problems.map((p) => p.severity),
      ['warning'],
    );
    project.write('level.mjs', "export default 'error';\n");
    assert.deepEqual(
      (await linter.lint(['src/a.js'], neverAborted())).problems.map((p) => p.severity),
      ['error'],
      'the local module imported by the config',
    );
    project.write('eslint.config.mjs', "export default [{ files: ['**/*.js'], rules: { 'no-unused-vars': 'off' } }];\n");
    assert.deepEqual(await linter.lint(['src/a.js'], neverAborted()), { status: 'passed', problems: [] }, 'the config itself');
  });

  it('a config that throws is an error, never a pass', async () => {
    project = new TempProject({ 'eslint.config.mjs': "throw new Error('broken config');\n", 'src/a.js': 'export const a = 1;\n' });
    const result = await make().lint(['src/a.js'], neverAborted());
    assert.equal(result.status, 'error');
    assert.match(result.detail ?? '', /^ESLint could not run: .*broken config/);
  });

  it('a config that never finishes loading is killed at the time limit and reported as an error', async () => {
    project = new TempProject({ 'eslint.config.mjs': 'while (true) {}\n', 'src/a.js': 'export const a = 1;\n' });
    const result = await make({ timeoutMs: 3000 }).lint(['src/a.js'], neverAborted());
    assert.equal(result.status, 'error');
    assert.match(result.detail ?? '', /no answer within 3000 ms; the lint process was killed/);
  });

  it('an abort kills the worker and throws CancelledError', async () => {
    const pidFile = path.join(mkdtempSync(path.join(tmpdir(), 'tr-pid-')), 'lint.pid');
    project = new TempProject({
      'eslint.config.mjs': `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(pidFile)}, String(process.pid));\nawait new Promise(() => setInterval(() => {}, 1000));\nexport default [];\n`,
      'src/a.js': 'export const a = 1;\n',
    });
    const controller = new AbortController();
    const lint = make().lint(['src/a.js'], controller.signal);
    assert.ok(await eventually(() => existsSync(pidFile), 20_000), 'the config never loaded');
    controller.abort();
    await assert.rejects(lint, CancelledError);
    const pid = Number(readFileSync(pidFile, 'utf8'));
    assert.ok(
      await eventually(() => {
        try {
          process.kill(pid, 0);
          return false;
        } catch {
          return true;
        }
      }),
      `the worker ${pid} still runs`,
    );
  });
});

describe('EslintLinter with a hostile ESLint config', function () {
  this.timeout(90_000);
  let ws: ReturnType<typeof copyFixture>;
  let workerScript: string;
  let outside: string[];
  const saved = process.env['ANTHROPIC_API_KEY'];
  before(async () => {
    workerScript = await buildLintWorker(path.join(mkdtempSync(path.join(tmpdir(), 'tr-worker-')), 'eslintWorker.js'));
  });
  after(() => rmSync(path.dirname(workerScript), { recursive: true, force: true }));
  beforeEach(() => {
    ws = copyFixture();
    outside = outsidePaths(ws.root);
    writeFileSync(path.join(ws.root, 'eslint.config.mjs'), hostileEslintConfig(outside));
    process.env['ANTHROPIC_API_KEY'] = LINT_CANARY;
  });
  afterEach(() => {
    if (saved === undefined) delete process.env['ANTHROPIC_API_KEY'];
    else process.env['ANTHROPIC_API_KEY'] = saved;
    for (const f of outside) rmSync(f, { force: true });
    ws.dispose();
  });

  for (const sandbox of [true, false]) {
    it(`sees no secret${sandbox ? ', cannot write outside the workspace (sandbox on: bubblewrap),' : ' (sandbox off: the environment is still allowlisted)'} and still lints right`, async () => {
      const jail = await ProcessJail.open({
        root: ws.root,
        protect: [path.join(ws.root, '.ticket-runner')],
        parentEnv: process.env,
        ...(sandbox ? { requireSandbox: true } : { withoutSandbox: 'the test of what holds without bubblewrap' }),
      });
      assert.equal(jail.status.on, sandbox);
      const linter = new EslintLinter(ws.root, { workerScript, jail, nodePath: process.execPath });
      const files = ['src/utils/pagination.ts', 'src/types.ts'];
      let result;
      try {
        result = await linter.lint(files, neverAborted());
        // A second call reuses the worker, frozen in between.
        assert.deepEqual(await linter.lint(files, neverAborted()), result);
      } finally {
        linter.dispose();
        await jail.dispose();
      }
      assert.equal(result.status, 'passed', result.detail);
      const maxLines = result.problems.filter((p) => p.rule === 'max-lines');
      assert.deepEqual(
        maxLines.map((p) => [p.file, p.line, p.rule, p.severity]),
        files.map((f) => [f, 2, 'max-lines', 'warning']),
      );
      for (const p of maxLines) assert.match(p.message, /^File has too many lines \(\d+\)\. Maximum allowed is 1\.$/);
      // The config's own report of what it saw, once per file, says what the file it wrote says.
      const reported = result.problems.filter((p) => p.rule !== 'max-lines');
      assert.deepEqual(
        reported.map((p) => [p.file, p.line, p.rule, p.severity]),
        files.map((f) => [f, 1, 'hostile/seen', 'warning']),
      );
      const dumped = readFileSync(path.join(ws.root, 'lint-env.json'), 'utf8');
      for (const p of reported) assert.equal(p.message, dumped);
      const seen = JSON.parse(dumped) as { env: Record<string, string>; tries: Record<string, string> };
      assert.ok(!dumped.includes(LINT_CANARY), 'the canary key is not in the environment the config sees');
      assert.equal(seen.env['ANTHROPIC_API_KEY'], undefined);
      assert.notEqual(seen.env['HOME'], homedir(), 'a private HOME');
      assert.ok(!JSON.stringify(result).includes(LINT_CANARY));
      if (sandbox) {
        for (const f of outside) {
          assert.ok(!existsSync(f), `${f} was written from the ESLint config`);
          assert.notEqual(seen.tries[f], 'done');
        }
      }
    });
  }
});
