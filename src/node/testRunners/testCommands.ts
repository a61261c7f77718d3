import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { TestFramework } from '../../core/schema/testPlan';
import { RUNNER_CONFIGS } from '../../core/stages/manifestBuilder';
import { parseJestReport, parseMochaReport, parseNodeTestReport, type ReportParser } from './testReports';
import type { ToolResolver } from './toolResolution';

/** How to run one framework: node's arguments, and how to read the report it leaves. */
export interface TestCommand {
  args: string[];
  parse: ReportParser;
  /** The runner reports on stdout unless it can write the report file (old mocha). */
  reportOnStdout?: boolean;
}

export interface CommandContext {
  root: string;
  files: string[];
  /** Where the runner must write its machine-readable report. */
  reportFile: string;
  /** The node:test reporter module (dist/nodeTestReporter.mjs). */
  nodeTestReporter: string;
  tools: ToolResolver;
}

/** Either the command, or why the workspace cannot run this framework. */
export function testCommand(framework: TestFramework, ctx: CommandContext): TestCommand | { unavailable: string } {
  switch (framework) {
    case 'node:test':
      return nodeTestCommand(ctx);
    case 'vitest':
      return withBin(ctx, 'vitest', (bin) => ({
        // The default reporter too, so the output the Debugger quotes has the readable diff.
        args: [bin, 'run', '--reporter=json', `--outputFile.json=${ctx.reportFile}`, '--reporter=default', ...ctx.files],
        parse: parseJestReport,
      }));
    case 'jest':
      return withBin(ctx, 'jest', (bin) => ({
        args: [bin, '--json', `--outputFile=${ctx.reportFile}`, '--ci', '--watchAll=false', '--runTestsByPath', ...ctx.files],
        parse: parseJestReport,
      }));
    case 'mocha':
      return withBin(ctx, 'mocha', (bin) => mochaCommand(ctx, bin));
  }
}

function nodeTestCommand(ctx: CommandContext): TestCommand | { unavailable: string } {
  const loader: string[] = [];
  if (ctx.files.some(isTypeScript)) {
    const tsx = ctx.tools.module('tsx');
    if (!tsx) return { unavailable: 'the test files are TypeScript and tsx is installed neither in the workspace nor beside the extension' };
    loader.push('--import', pathToFileURL(tsx).href);
  }
  return {
    args: [
      ...loader,
      '--test',
      `--test-reporter=${pathToFileURL(ctx.nodeTestReporter).href}`,
      `--test-reporter-destination=${ctx.reportFile}`,
      '--test-reporter=spec',
      '--test-reporter-destination=stdout',
      ...ctx.files,
    ],
    parse: parseNodeTestReport,
  };
}

function mochaCommand(ctx: CommandContext, bin: string): TestCommand | { unavailable: string } {
  const loader: string[] = [];
  // A workspace with a mocharc registers its own loader; one without it gets tsx for TS files.
  if (ctx.files.some(isTypeScript) && !hasMochaConfig(ctx.root)) {
    const tsx = ctx.tools.module('tsx/cjs');
    if (!tsx) return { unavailable: 'the test files are TypeScript, the workspace has no .mocharc, and tsx is not installed' };
    loader.push('--require', tsx);
  }
  return {
    args: [bin, ...loader, '--reporter', 'json', '--reporter-option', `output=${ctx.reportFile}`, ...ctx.files],
    parse: parseMochaReport,
    reportOnStdout: true,
  };
}

function withBin(ctx: CommandContext, name: string, build: (bin: string) => TestCommand | { unavailable: string }): TestCommand | { unavailable: string } {
  const bin = ctx.tools.bin(name);
  return bin ? build(bin) : { unavailable: `${name} is installed neither in the workspace nor beside the extension` };
}

function isTypeScript(file: string): boolean {
  return /\.[mc]?tsx?$/i.test(file);
}

function hasMochaConfig(root: string): boolean {
  return RUNNER_CONFIGS.mocha.some((f) => existsSync(join(root, f)));
}
