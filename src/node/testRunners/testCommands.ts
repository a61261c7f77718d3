import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { TestFramework } from '../../core/schema/testPlan';
import { RUNNER_CONFIGS } from '../../core/stages/manifest/manifestBuilder';
import { parseJestReport, parseMochaReport, parseNodeTestReport, type ReportParser } from './testReports';
import type { ToolResolver } from './toolResolution';
import { judgedByWitness, WITNESS_KEY_VAR, WITNESS_RECORD_VAR, type WitnessedRunner } from './witnessRecord';

/** How to run one framework: node's arguments, and how to read the report it leaves. */
export interface TestCommand {
  args: string[];
  parse: ReportParser;
  /** The runner reports on stdout unless it can write the report file (old mocha). */
  reportOnStdout?: boolean;
  /** Variables the command needs beside the run's own (the preload of vitest's and jest's workers). */
  env?: Record<string, string>;
  /** tsx's CommonJS hook, when the command preloads it: its cache can be filled beforehand (trustedTransforms.ts). */
  tsxCjs?: string;
  /** A file written just before the command starts, with only the owner's permissions (the witness's key). */
  handOver?: { file: string; text: string };
}

export interface CommandContext {
  root: string;
  files: string[];
  /** Where the runner must write its machine-readable report. */
  reportFile: string;
  /** The node:test reporter module (dist/nodeTestReporter.mjs). */
  nodeTestReporter: string;
  tools: ToolResolver;
  /**
   * node:test only: nothing the tests can load needs ES modules (`commonJsOnly`), so tsx's
   * CommonJS hook alone loads the TypeScript, at about half the cost of `--import tsx`.
   */
  commonJs?: boolean;
  /** With it, the runner also measures coverage with its own tool and writes istanbul's JSON here. */
  coverage?: CoverageRequest;
}

/** Where in CoverageRequest.dir the runner writes coverage-final.json. */
export const COVERAGE_FOLDER = 'report';

/** The runner's own coverage: the files to measure, and the fresh folder its report goes to. */
export interface CoverageRequest {
  /**
   * Made by the caller and writable in the sandbox. The runner writes into a folder inside it
   * (COVERAGE_FOLDER): vitest removes its reports folder before it starts, and the sandbox's
   * mount point itself cannot be removed.
   */
  dir: string;
  /** Workspace-relative: each is measured whether the tests load it or not. */
  measure: string[];
}

/** Either the command, or why the workspace cannot run this framework. */
export function testCommand(framework: TestFramework, ctx: CommandContext): TestCommand | { unavailable: string } {
  switch (framework) {
    case 'node:test':
      return nodeTestCommand(ctx);
    case 'vitest':
      return withBin(ctx, 'vitest', (bin) => {
        const coverage = ctx.coverage ? vitestCoverage(ctx, ctx.coverage) : [];
        if (!Array.isArray(coverage)) return coverage;
        return withFrozenExpect(ctx, {
          // The default reporter too, so the output the Debugger quotes has the readable diff.
          args: [bin, 'run', '--reporter=json', `--outputFile.json=${ctx.reportFile}`, '--reporter=default', ...coverage, ...ctx.files],
          parse: parseJestReport,
        });
      });
    case 'jest':
      return withBin(ctx, 'jest', (bin) =>
        withFrozenExpect(ctx, {
          // A memory limit makes jest run the tests in a worker even when it would run them in its
          // own process (one test file, one core): the code under test then shares no module, no
          // fs, with the process that writes the reports.
          args: [
            bin,
            '--json',
            `--outputFile=${ctx.reportFile}`,
            '--ci',
            '--watchAll=false',
            '--workerIdleMemoryLimit=2GB',
            ...(ctx.coverage ? jestCoverage(ctx.coverage) : []),
            '--runTestsByPath',
            ...ctx.files,
          ],
          parse: parseJestReport,
        }),
      );
    case 'mocha':
      return withBin(ctx, 'mocha', (bin) => mochaCommand(ctx, bin));
  }
}

/**
 * `--require` of dist/testApisFrozen.cjs (beside the node:test reporter), which freezes the
 * assertion library and node:test's API before the code under test loads. A build without it
 * cannot run the tests: the defence is never dropped in silence.
 */
function frozenApis(ctx: CommandContext): string[] | { unavailable: string } {
  const file = join(dirname(ctx.nodeTestReporter), 'testApisFrozen.cjs');
  return existsSync(file) ? ['--require', file] : { unavailable: `${file} is missing: run npm run build` };
}

/**
 * vitest and jest load the test files in workers they start: dist/expectFrozen.mjs reaches them
 * through NODE_OPTIONS, and freezes `expect` and chai just before each test file loads. A build
 * without it cannot run the tests.
 */
function withFrozenExpect(ctx: CommandContext, command: TestCommand): TestCommand | { unavailable: string } {
  const file = join(dirname(ctx.nodeTestReporter), 'expectFrozen.mjs');
  if (!existsSync(file)) return { unavailable: `${file} is missing: run npm run build` };
  return { ...command, env: { NODE_OPTIONS: `--import=${JSON.stringify(pathToFileURL(file).href)}` } };
}

function nodeTestCommand(ctx: CommandContext): TestCommand | { unavailable: string } {
  const frozen = frozenApis(ctx);
  if (!Array.isArray(frozen)) return frozen;
  const loader: string[] = [...frozen];
  if (ctx.files.some(isTypeScript)) {
    const cjs = ctx.commonJs === true ? ctx.tools.module('tsx/cjs') : undefined;
    if (cjs) return { ...nodeTestArgs(ctx, [...loader, '--require', cjs]), tsxCjs: cjs };
    const tsx = ctx.tools.module('tsx');
    if (!tsx)
      return { unavailable: 'the test files are TypeScript and tsx is installed neither in the workspace nor beside the extension' };
    loader.push('--import', pathToFileURL(tsx).href);
  }
  return nodeTestArgs(ctx, loader);
}

function nodeTestArgs(ctx: CommandContext, loader: string[]): TestCommand {
  return {
    args: [
      ...loader,
      '--test',
      // Each test file runs in a process of its own: the visible file and the held-out one side by side.
      ...(ctx.files.length > 1 ? ['--test-concurrency=2'] : []),
      `--test-reporter=${pathToFileURL(ctx.nodeTestReporter).href}`,
      `--test-reporter-destination=${ctx.reportFile}`,
      '--test-reporter=spec',
      '--test-reporter-destination=stdout',
      ...ctx.files,
    ],
    ...witnessed(ctx, 'node:test', parseNodeTestReport),
  };
}

function mochaCommand(ctx: CommandContext, bin: string): TestCommand | { unavailable: string } {
  const frozen = frozenApis(ctx);
  if (!Array.isArray(frozen)) return frozen;
  const loader: string[] = [...frozen];
  let tsxCjs: string | undefined;
  // A workspace with a mocharc registers its own loader; one without it gets tsx for TS files.
  if (ctx.files.some(isTypeScript) && !hasMochaConfig(ctx.root)) {
    tsxCjs = ctx.tools.module('tsx/cjs');
    if (!tsxCjs) return { unavailable: 'the test files are TypeScript, the workspace has no .mocharc, and tsx is not installed' };
    loader.push('--require', tsxCjs);
  }
  return {
    ...(tsxCjs ? { tsxCjs } : {}),
    args: [bin, ...loader, '--reporter', 'json', '--reporter-option', `output=${ctx.reportFile}`, ...ctx.files],
    ...witnessed(ctx, 'mocha', parseMochaReport),
    // The code under test shares the runner's stdout and could print a report of its own there
    // and exit: only a mocha too old to write the report file (before 10) is read from stdout.
    reportOnStdout: !writesReportFile(ctx.tools.version('mocha')),
  };
}

/**
 * The witness of the runner's process (mochaWitness.ts, nodeTestWitness.ts): its key in a file
 * beside the report, outside the workspace, which the preload removes before the test files
 * load; and the report read through what it saw.
 */
function witnessed(
  ctx: CommandContext,
  runner: WitnessedRunner,
  parse: ReportParser,
): Required<Pick<TestCommand, 'env' | 'handOver' | 'parse'>> {
  const key = randomBytes(32).toString('hex');
  const witness = { key: `${ctx.reportFile}.key`, record: `${ctx.reportFile}.witness` };
  return {
    env: { [WITNESS_KEY_VAR]: witness.key, [WITNESS_RECORD_VAR]: witness.record },
    handOver: { file: witness.key, text: key },
    parse: (report, root) => judgedByWitness(parse(report, root), readOr(witness.record), key, runner),
  };
}

/** Whether this mocha's json reporter takes `output=<file>` (10 and later). An unknown version is taken as new. */
export function writesReportFile(version: string | undefined): boolean {
  const major = /^(\d+)\./.exec(version ?? '');
  return !major || Number(major[1]) >= 10;
}

export const NO_VITEST_COVERAGE =
  'vitest measures coverage with @vitest/coverage-v8 (or @vitest/coverage-istanbul), installed neither in the workspace nor beside the extension: add it to the devDependencies';

/** vitest's coverage package: v8's, or istanbul's when only that one is installed. */
export function vitestCoverageProvider(tools: ToolResolver): 'v8' | 'istanbul' | undefined {
  return tools.installed('@vitest/coverage-v8') ? 'v8' : tools.installed('@vitest/coverage-istanbul') ? 'istanbul' : undefined;
}

/**
 * vitest's own coverage, with the options that decide the measure given on the command line,
 * where they win over the project's config (which the Coder may have edited): the v8 provider
 * (istanbul's when only that one is installed), only the json reporter, into our folder, the
 * changed files included whether loaded or not, and thresholds never written back to the config.
 */
function vitestCoverage(ctx: CommandContext, c: CoverageRequest): string[] | { unavailable: string } {
  const provider = vitestCoverageProvider(ctx.tools);
  if (!provider) return { unavailable: NO_VITEST_COVERAGE };
  return [
    '--coverage.enabled=true',
    `--coverage.provider=${provider}`,
    '--coverage.reporter=json',
    `--coverage.reportsDirectory=${join(c.dir, COVERAGE_FOLDER)}`,
    '--coverage.clean=true',
    '--coverage.thresholds.autoUpdate=false',
    ...c.measure.map((f) => `--coverage.include=${f}`),
  ];
}

/** jest's own coverage: its json reporter into our folder, the changed files collected, the project's thresholds off. */
function jestCoverage(c: CoverageRequest): string[] {
  return [
    '--coverage',
    '--coverageReporters=json',
    `--coverageDirectory=${join(c.dir, COVERAGE_FOLDER)}`,
    '--coverageThreshold={}',
    ...c.measure.map((f) => `--collectCoverageFrom=${f}`),
  ];
}

function withBin(
  ctx: CommandContext,
  name: string,
  build: (bin: string) => TestCommand | { unavailable: string },
): TestCommand | { unavailable: string } {
  const bin = ctx.tools.bin(name);
  return bin ? build(bin) : { unavailable: `${name} is installed neither in the workspace nor beside the extension` };
}

function isTypeScript(file: string): boolean {
  return /\.[mc]?tsx?$/i.test(file);
}

function readOr(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

function hasMochaConfig(root: string): boolean {
  return RUNNER_CONFIGS.mocha.some((f) => existsSync(join(root, f)));
}
