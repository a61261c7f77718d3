import { chmod, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { errorMessage } from '../../core/errors';
import type { TestRunRequest } from '../../core/ports/checks';
import type { CoveragePort, CoverageResult, MeasuredRun } from '../../core/ports/gates';
import { COVERAGE_FOLDER, NO_VITEST_COVERAGE, vitestCoverageProvider } from '../testRunners/testCommands';
import { ToolResolver } from '../testRunners/toolResolution';
import { ProcessTestRunner, type ProcessTestRunnerOptions } from '../testRunners/testRunner';
import { readIstanbulCoverage } from './istanbulCoverage';
import { startCoverageReader, type CoverageReader } from './coverageThread';
import { NOT_NODES } from './coverageProtocol';
import { packageRoot } from '../packageRoot';
import { absolutePath } from '../workspacePaths';

/** V8 coverage's worker thread, as the build ships it. */
const coverageWorker = (): string => join(packageRoot(), 'dist', 'coverageWorker.js');

/** Runners that execute the test files in node's own module system, where V8 sees the real scripts. */
const IN_NODE = new Set(['node:test', 'mocha']);
/** Runners with a coverage tool of their own, which writes istanbul's JSON. */
const OWN_TOOL = new Set(['vitest', 'jest']);

/**
 * CoveragePort: the workspace's runner runs once, as the test check runs it, and measures the
 * changed files. vitest and jest measure with their own coverage tool (they run the tests in
 * their own module systems, which V8's script coverage does not map back); node:test and mocha,
 * which have none, with V8's (NODE_V8_COVERAGE). Either way the data goes to a fresh folder
 * outside the workspace, named on the command line over whatever the project's config says.
 */
export class ProjectCoverageRunner implements CoveragePort {
  constructor(private readonly options: ProcessTestRunnerOptions) {}

  /**
   * V8's counters run whether read or not, and vitest's v8 provider reads the same counters: the
   * run that judges the tests measures as well, for about a quarter of a second more a run
   * (measured on shop-esm), instead of a run of the gate's own after it. Instrumenting tools
   * (istanbul's provider, jest's babel) rewrite the code they load, which costs a run: those
   * measure in the gate's run.
   */
  measuresAsItRuns(framework: TestRunRequest['framework']): boolean {
    if (IN_NODE.has(framework)) return true;
    return framework === 'vitest' && vitestCoverageProvider(new ToolResolver(this.options.root, this.options.fallbackDir)) === 'v8';
  }

  async run(request: TestRunRequest & { measure: string[] }, signal: AbortSignal): Promise<CoverageResult> {
    if (OWN_TOOL.has(request.framework)) return this.ownTool(request, signal);
    if (IN_NODE.has(request.framework)) return (await this.v8(request, signal)).coverage;
    return { status: 'unavailable', files: [], detail: `no coverage source for ${request.framework}` };
  }

  /** As `run`, with V8's measure read after the tests have ended, while the caller goes on. */
  async measuredRun(request: TestRunRequest & { measure: string[] }, signal: AbortSignal): Promise<MeasuredRun> {
    if (IN_NODE.has(request.framework)) return this.v8(request, signal);
    const coverage = await this.run(request, signal);
    return { tests: coverage.tests, coverage: Promise.resolve(coverage) };
  }

  /**
   * The runner's own coverage, as istanbul's coverage-final.json. Every changed file is asked
   * for by name, so a file the report leaves out was excluded or never measured: the gate
   * counts it as uncovered. No report, or one that does not read as a report of this code, is
   * an error, never an empty measure.
   */
  private async ownTool(request: TestRunRequest & { measure: string[] }, signal: AbortSignal): Promise<CoverageResult> {
    const source = request.framework as 'vitest' | 'jest';
    // A project with no coverage package cannot be measured: said, as for any runner without one.
    if (source === 'vitest' && !vitestCoverageProvider(new ToolResolver(this.options.root, this.options.fallbackDir)))
      return { status: 'unavailable', source, files: [], detail: NO_VITEST_COVERAGE };
    const dir = await mkdtemp(join(tmpdir(), 'ticket-runner-coverage-'));
    try {
      const runner = new ProcessTestRunner({
        ...this.options,
        coverage: { dir, measure: request.measure },
        writable: [...(this.options.writable ?? []), dir],
      });
      let tests;
      try {
        tests = await runner.run(testRequest(request), signal);
      } finally {
        runner.dispose();
      }
      if (tests.status !== 'passed') return { status: 'measured', source, tests, files: [] };
      const text = await readFile(join(dir, COVERAGE_FOLDER, 'coverage-final.json'), 'utf8').catch(() => undefined);
      if (text === undefined) return { status: 'error', source, tests, files: [], detail: `${source} wrote no coverage-final.json` };
      try {
        const files = await readIstanbulCoverage(text, this.options.root, request.measure);
        const absent = request.measure.filter((f) => !files.some((x) => x.file === f));
        return { status: 'measured', source, tests, files, absent };
      } catch (err) {
        return { status: 'error', source, tests, files: [], detail: `${source}'s coverage report cannot be used: ${errorMessage(err)}` };
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  /**
   * V8's own coverage (the data behind node's --experimental-test-coverage and c8), with source
   * maps on; the changed files' line hits are read back through their maps. Node 20's own lcov
   * reporter maps TypeScript lines loaded through tsx wrongly, so the maps are read here.
   *
   * The tests' result comes back as soon as they have ended; the measure is read after, in the
   * reader's thread, while the caller goes on (a quarter of a second when a measured file was
   * loaded by no test, which loads TypeScript there). What it reads is fixed before the result
   * comes back: the coverage folder (no later command may write it) and the measured files' text
   * as the tests ran them. Tests that did not pass leave nothing to read: no measure counts then.
   */
  private async v8(request: TestRunRequest & { measure: string[] }, signal: AbortSignal): Promise<MeasuredRun> {
    const dir = await mkdtemp(join(tmpdir(), 'ticket-runner-coverage-'));
    const removeDir = async () => {
      await chmod(dir, 0o700).catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    };
    let reader: CoverageReader | undefined;
    // Once the reading has the folder, it removes it; until then, this does.
    let handedOn = false;
    try {
      const mode = (await stat(dir)).mode;
      const nodeOptions = [this.options.env?.['NODE_OPTIONS'], '--enable-source-maps'].filter(Boolean).join(' ');
      // The pids of the command's node processes, each recorded by the frozen preload before any code under test ran.
      const pids = new Set<number>();
      const onProcesses = (recorded: number[]) => recorded.forEach((p) => pids.add(p));
      const runner = new ProcessTestRunner({
        ...this.options,
        env: { ...this.options.env, NODE_V8_COVERAGE: dir, NODE_OPTIONS: nodeOptions },
        writable: [...(this.options.writable ?? []), dir],
        onProcesses,
      });
      // Its reader starts now and loads while the tests run.
      reader = startCoverageReader(coverageWorker());
      let tests;
      try {
        tests = await runner.run(testRequest(request), signal);
      } finally {
        runner.dispose();
      }
      const measured: CoverageResult = { status: 'measured', source: 'v8', tests, files: [] };
      if (tests.status !== 'passed') return { tests, coverage: Promise.resolve(measured) };
      const refused = (err: unknown): CoverageResult => ({
        status: 'error',
        source: 'v8',
        tests,
        files: [],
        detail: `V8's coverage data cannot be used: ${errorMessage(err)}`,
      });
      // A folder made unwritable keeps Node from writing its own file at exit, beside a forged one;
      // one the tests removed has nothing of Node's left to read.
      const changed = await stat(dir).then(
        (s) =>
          s.mode === mode ? undefined : new Error(`${NOT_NODES}: the coverage folder's permissions were changed during the test run`),
        (err: unknown) => (err instanceof Error ? err : new Error(String(err))),
      );
      if (changed) return { tests, coverage: Promise.resolve(refused(changed)) };
      const texts = new Map<string, string | null>();
      for (const f of request.measure) texts.set(f, await readFile(absolutePath(this.options.root, f), 'utf8').catch(() => null));
      const read = reader;
      reader = undefined;
      const coverage = read
        .collect(dir, this.options.root, request.measure, pids, texts)
        .then((found): CoverageResult => ({ ...measured, ...found }), refused);
      // The folder goes once it is read, whoever waits for the measure, or nobody does.
      handedOn = true;
      void coverage
        .finally(() => {
          read.dispose();
          return removeDir();
        })
        .catch(() => undefined);
      return { tests, coverage };
    } finally {
      reader?.dispose();
      if (!handedOn) await removeDir();
    }
  }
}

/** The test run a measured request makes: the request without its measure. */
function testRequest({ measure: _measure, ...request }: TestRunRequest & { measure: string[] }): TestRunRequest {
  return request;
}
