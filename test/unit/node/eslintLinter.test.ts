import assert from 'node:assert/strict';
import { EslintLinter } from '../../../src/node/lint/eslintLinter';
import { neverAborted, repoRoot, TempProject } from './tempProject';

const config = "export default [{ files: ['**/*.js'], rules: { 'no-unused-vars': 'error', 'prefer-const': 'warn' } }];\n";

describe('EslintLinter', function () {
  this.timeout(30_000);
  let project: TempProject;
  afterEach(() => project.remove());

  it('skips a workspace without an ESLint config', async () => {
    project = new TempProject({ 'src/a.js': 'const unused = 1;\n' });
    const result = await new EslintLinter(project.root, { fallbackDir: repoRoot }).lint(['src/a.js'], neverAborted());
    assert.equal(result.status, 'skipped');
    assert.match(result.detail ?? '', /no ESLint config/);
  });

  it('skips a workspace with a config but no eslint installed', async () => {
    project = new TempProject({ 'eslint.config.mjs': config, 'src/a.js': 'const unused = 1;\n' });
    const result = await new EslintLinter(project.root).lint(['src/a.js'], neverAborted());
    assert.equal(result.status, 'skipped');
    assert.match(result.detail ?? '', /no eslint installed/);
  });

  it('runs the workspace config with a real ESLint and reports its problems', async () => {
    project = new TempProject({
      'eslint.config.mjs': config,
      'src/a.js': 'export function f() {\n  let unused = 1;\n  return 2;\n}\n',
      'src/clean.js': 'export const two = 1 + 1;\n',
    });
    const linter = new EslintLinter(project.root, { fallbackDir: repoRoot });
    const failed = await linter.lint(['src/a.js', 'src/clean.js'], neverAborted());
    assert.equal(failed.status, 'failed');
    assert.deepEqual(
      failed.problems.map((p) => [p.file, p.line, p.column, p.rule, p.severity]),
      [['src/a.js', 2, 7, 'no-unused-vars', 'error'], ['src/a.js', 2, 7, 'prefer-const', 'warning']],
    );
    const passed = await linter.lint(['src/clean.js'], neverAborted());
    assert.deepEqual(passed, { status: 'passed', problems: [] });
  });
});
