import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestRunRequest } from '../../core/ports/checks';
import type { CoveragePort, CoverageResult } from '../../core/ports/gates';
import { ProcessTestRunner, type ProcessTestRunnerOptions } from '../testRunners/testRunner';
import { collectV8Coverage } from './v8Coverage';

/** Runners that execute the test files in node's own module system, where V8 sees the real scripts. */
const IN_NODE = new Set(['node:test', 'mocha']);

/**
 * CoveragePort over V8's own coverage (NODE_V8_COVERAGE, the data behind node's
 * --experimental-test-coverage and c8): the workspace's runner runs once, as the test check
 * runs it, with the coverage directory and source maps on, and the changed files' line hits
 * are read back through their source maps. Node 20's own lcov reporter maps TypeScript lines
 * loaded through tsx wrongly, so the maps are read here. jest and vitest run tests in their own
 * module systems: they are not measured here, and the result says so.
 */
export class V8CoverageRunner implements CoveragePort {
  constructor(private readonly options: ProcessTestRunnerOptions) {}

  async run(request: TestRunRequest & { measure: string[] }, signal: AbortSignal): Promise<CoverageResult> {
    if (!IN_NODE.has(request.framework)) {
      return { status: 'unavailable', files: [], detail: `${request.framework} runs the tests in its own module system; V8 coverage of the changed lines is measured for node:test and mocha only` };
    }
    const dir = await mkdtemp(join(tmpdir(), 'ticket-runner-coverage-'));
    try {
      const nodeOptions = [this.options.env?.['NODE_OPTIONS'], '--enable-source-maps'].filter(Boolean).join(' ');
      const runner = new ProcessTestRunner({ ...this.options, env: { ...this.options.env, NODE_V8_COVERAGE: dir, NODE_OPTIONS: nodeOptions }, writable: [dir] });
      const tests = await runner.run({ framework: request.framework, files: request.files, timeoutMs: request.timeoutMs }, signal);
      return { status: 'measured', tests, files: await collectV8Coverage(dir, this.options.root, request.measure) };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
}
