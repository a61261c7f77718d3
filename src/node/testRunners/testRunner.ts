import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { CancelledError, errorMessage } from '../../core/errors';
import type { TestRunnerPort, TestRunRequest, TestsToPrepare } from '../../core/ports/checks';
import type { TestCaseResult, TestRunResult } from '../../core/schema/checks';
import type { JudgingToolFile } from '../../core/schema/events';
import { ProcessJail } from '../sandbox/processJail';
import { runtimeMountPoints } from '../sandbox/workspaceDenies';
import { realPathOr } from '../workspacePaths';
import type { GroupRunResult } from '../sandbox/processGroup';
import { PID_CHANNEL_FD, PID_CHANNEL_VAR, recordedPids } from './pidChannel';
import { StackMapper } from './sourceMappedStack';
import {
  inInstalledPackages,
  MAX_IN_MEMORY_BYTES,
  runsCodeLater,
  SideEffectGuard,
  type SideEffect,
  type SideEffectGuardOptions,
} from './sideEffects';
import { holdGuard, type GuardHold } from './sharedGuard';
import { commonJsOnly } from './commonJsLoader';
import { propertyEnvironment } from './propertyRuns';
import { testCommand, type CoverageRequest, type TestCommand } from './testCommands';
import { jsonObjectIn, parseJestReport, type ParsedReport } from './testReports';
import { ToolResolver } from './toolResolution';
import { stillChanged, type JudgingTools, type ToolChange } from './judgingTools';
import type { KeptTransforms } from './keptTransforms';
import { MAX_FILES, TrustedTransforms } from './trustedTransforms';
import { packageOf, workspacePackages } from '../../core/stages/common/workspacePackages';
import { FsWorkspace } from '../workspace/fsWorkspace';
import { walkTree } from '../workspace/treeWalk';
import { SKIPPED } from '../workspace/treeSkips';

/** What tsx compiles: TypeScript sources, not declarations. */
const COMPILED_BY_TSX = /(?<!\.d)\.[mc]?tsx?$/;

/**
 * What vitest prints when the project's own coverage thresholds are not met (jest's are turned
 * off on its command line). Only an exit code of 1 with this line and every test passed counts
 * as that; a killed runner or any other exit stays an error.
 */
const THRESHOLD_MISSED = /^ERROR: (Coverage for \w+ \([\d.]+%\) does not meet .*threshold|Uncovered \w+ \(\d+\) exceed .*threshold)/m;

/** vitest's word for an error outside any test (an unhandled rejection): with it, exit 1 is not the thresholds' alone. */
const UNHANDLED = /Unhandled (Errors?|Rejections?)\b/;

/** The variable that names the file a test command override may write its JSON report to. */
export const REPORT_VAR = 'TICKET_RUNNER_REPORT';

export interface ProcessTestRunnerOptions {
  /**
   * The workspace: the runner's working directory, and the first place tools are looked up;
   * in an npm-workspaces monorepo, the package that holds the test files is (see `unitOf`).
   */
  root: string;
  /** The bundled node:test reporter: `dist/nodeTestReporter.mjs` beside the extension. */
  nodeTestReporter: string;
  /** Looked up after the workspace for tsx and the runners: the extension's folder. */
  fallbackDir?: string;
  /**
   * The node that runs the tests; 'node' on PATH by default. Not process.execPath: in the
   * extension host that is the editor's Electron binary.
   */
  nodePath?: string;
  /** How much of the combined output to keep, from the end; 8000 characters by default. */
  outputTailChars?: number;
  /** Added to the environment of the runner, which is otherwise the jail's allowlist. */
  env?: Record<string, string>;
  /** Folders outside the root the runner may write (the coverage folder). */
  writable?: string[];
  /**
   * Where the runner runs: the OS sandbox with an allowlisted environment (src/node/wire.ts
   * builds it). Without one, the environment is still allowlisted and the output scrubbed.
   */
  jail?: ProcessJail;
  /**
   * A shell command that replaces the detected runner (the `ticketRunner.testCommand` setting,
   * `--test-command`). The rendered test files are appended as arguments. The command may write
   * a jest-format JSON report (jest --json, vitest's json reporter) to the file named by
   * $TICKET_RUNNER_REPORT: it is then judged as a detected runner is, case by case. Without one,
   * the verdict is its exit code and the cases are empty.
   */
  commandOverride?: string;
  /**
   * Run with the runner's own coverage (vitest, jest), its report written to `coverage.dir`
   * (which must also be in `writable`). The project's coverage thresholds may then fail the
   * runner after every test passed: that is the project's policy, not a test failure.
   */
  coverage?: CoverageRequest;
  /** How the side-effect guard keeps large files (its tests lower the snapshot budget). */
  sideEffects?: SideEffectGuardOptions;
  /**
   * Called after a node:test or mocha run with the pids its node processes recorded at their
   * start through the frozen preload (testApisFrozen.ts), before any code under test ran.
   * V8's coverage is believed only for these processes (v8Coverage.ts).
   */
  onProcesses?: (pids: number[]) => void;
  /**
   * The run's record of the installed tools that judge the tests, shared by every runner of the
   * run (the checks', the gates', the scratch copies'): looked at before and after each command.
   */
  judgingTools?: JudgingTools;
  /** tsx's cache kept between runs on this workspace (keptTransforms.ts). */
  keptTransforms?: KeptTransforms;
}

/**
 * TestRunnerPort: runs the workspace's own runner as a child process group with a
 * machine-readable reporter and a time limit, and parses its report into typed results.
 */
export class ProcessTestRunner implements TestRunnerPort {
  private readonly tools: ToolResolver;
  private readonly jail: ProcessJail;
  private readonly sideEffects: SideEffectGuard;
  /** This runner's hold on the guard it shares with the run's other runners over the same folder. */
  private readonly guardHold: GuardHold;
  /** tsx's cache, compiled ahead of the test processes and read-only to them (sandbox only). */
  private readonly transforms: TrustedTransforms | undefined;
  /** The first command's look, taken ahead by `prepare`. */
  private lookedAhead: Promise<void> | undefined;

  constructor(private readonly options: ProcessTestRunnerOptions) {
    this.tools = new ToolResolver(options.root, options.fallbackDir);
    this.jail = options.jail ?? ProcessJail.plain(options.root);
    const root = realPathOr(options.root);
    // Only with the sandbox on: without it, nothing makes those files but the code under test.
    const mountPoints = this.jail.status.on ? { runtimeMountPoints: () => runtimeMountPoints(root) } : {};
    this.guardHold = holdGuard(this.jail, options.root, { ...options.sideEffects, ...mountPoints });
    this.sideEffects = this.guardHold.guard;
    const warmer = join(dirname(options.nodeTestReporter), 'tsxWarm.cjs');
    this.transforms = TrustedTransforms.of(this.jail, warmer, options.nodePath ?? 'node', options.keptTransforms);
  }

  /**
   * Where the files run: in an npm-workspaces monorepo, the package that holds them all (its
   * runner config, its node_modules first), with the files relative to it; otherwise the root.
   */
  private async unitOf(files: readonly string[]): Promise<{ cwd: string; files: string[] }> {
    const packages = await workspacePackages(new FsWorkspace(this.options.root));
    const owners = new Set(files.map((f) => packageOf(packages, f)?.dir));
    const [dir] = owners;
    if (owners.size !== 1 || dir === undefined) return { cwd: this.options.root, files: [...files] };
    return { cwd: join(this.options.root, dir), files: files.map((f) => f.slice(dir.length + 1)) };
  }

  run(request: TestRunRequest, signal: AbortSignal): Promise<TestRunResult> {
    return this.guardHold.exclusive(() => this.runAlone(request, signal));
  }

  private async runAlone(request: TestRunRequest, signal: AbortSignal): Promise<TestRunResult> {
    if (signal.aborted) throw new CancelledError('test run cancelled');
    const judges = this.options.judgingTools;
    // Recorded before the framework's first command, so before any code under test ran.
    if (judges) await judges.record(request.framework, [(await this.unitOf(request.files)).cwd, this.options.root]);
    const reportDir = await mkdtemp(join(tmpdir(), 'ticket-runner-tests-'));
    await this.sideEffects.before();
    // A change made between commands (by a process an earlier one left behind) voids this one too.
    const toolChanges = judges ? await judges.look() : [];
    const looks = judges?.changeCount ?? 0;
    let result: TestRunResult | undefined;
    try {
      const unrestored = judges?.unrestoredFiles() ?? [];
      result = unrestored.length ? notRun(request, unrestored) : await this.runWithReport(request, signal, join(reportDir, 'report'));
    } finally {
      // Before the workspace's look: the watch on node_modules then reports the change and its put-back as one.
      if (judges) toolChanges.push(...(await judges.look()));
      // Put back what the run did to the workspace even when it was cancelled.
      const effects = await this.sideEffects.restore();
      await rm(reportDir, { recursive: true, force: true });
      const putBack = new Set(toolChanges.filter((c) => c.restored).map((c) => c.path));
      if (result && effects.length)
        result = withSideEffects(
          result,
          effects.map((e) => (putBack.has(e.path) ? { ...e, restored: true } : e)),
        );
      if (result && (toolChanges.length || (judges?.changeCount ?? 0) !== looks)) result = voidedByTools(result, toolChanges);
    }
    return result;
  }

  async unrestoredTools(): Promise<JudgingToolFile[]> {
    const judges = this.options.judgingTools;
    if (!judges) return [];
    await judges.look();
    return judges.unrestoredFiles();
  }

  stillChangedTools(files: readonly JudgingToolFile[]): Promise<JudgingToolFile[]> {
    return stillChanged(this.options.root, files);
  }

  /** Lets go of the side-effect guard; the run's last runner over this folder removes its snapshots of large files. */
  dispose(): void {
    this.guardHold.release();
  }

  /**
   * The workspace's TypeScript sources as the side-effect guard last read them, the run's test
   * files first: what tsx may compile for this run.
   */
  private *sourcesOf(files: readonly string[]): Iterable<readonly [string, Buffer]> {
    const kept = this.sideEffects.keptFiles();
    const first = new Set(files);
    for (const f of files) {
      const bytes = kept.get(f);
      if (bytes && COMPILED_BY_TSX.test(f)) yield [join(this.options.root, f), bytes];
    }
    for (const [f, bytes] of kept) if (!first.has(f) && COMPILED_BY_TSX.test(f)) yield [join(this.options.root, f), bytes];
  }

  /** The seed of the rendered properties, and fast-check for a workspace without its own (`propertyEnvironment`). */
  private propertyEnvironment(cwd: string, request: TestRunRequest): Record<string, string> {
    return propertyEnvironment(cwd, dirname(this.options.nodeTestReporter), request.propertySeed, this.options.env);
  }

  /** The override: the user's command, run by the shell, judged by its exit code. */
  private async runOverride(command: string, request: TestRunRequest, signal: AbortSignal, reportFile: string): Promise<TestRunResult> {
    // The files go in as positional parameters, so no path is ever parsed by the shell.
    const unit = await this.unitOf(request.files);
    const args = ['-c', `${command} "$@"`, 'ticket-runner-tests', ...unit.files];
    const run = await this.jail.run('/bin/sh', args, {
      cwd: unit.cwd,
      env: { ...this.options.env, ...this.propertyEnvironment(unit.cwd, request), [REPORT_VAR]: reportFile },
      writable: [dirname(reportFile), ...(this.options.writable ?? [])],
      readOnly: request.files,
      timeoutMs: request.timeoutMs,
      signal,
      tailChars: this.options.outputTailChars ?? 8000,
    });
    if (run.stopped === 'abort') throw new CancelledError('test run cancelled');
    const argv = ['/bin/sh', ...args];
    const base = { durationMs: run.durationMs, cases: [] };
    if (run.spawnError)
      return result(request, argv, {
        ...base,
        status: 'error',
        output: `[ticket-runner] could not start the test command: ${run.spawnError.message}`,
      });
    if (run.stopped === 'timeout')
      return result(request, argv, {
        ...base,
        status: 'timeout',
        output: `${run.output}\n[ticket-runner] killed after ${request.timeoutMs} ms, with its whole process group`,
      });
    if (existsSync(reportFile)) return this.judge(request, argv, run, reportFile, { parse: parseJestReport });
    const note = `\n[ticket-runner] test command override "${command}" exited with ${String(run.exitCode)}; no per-test report`;
    return result(request, argv, { ...base, status: run.exitCode === 0 ? 'passed' : 'failed', output: run.output + note });
  }

  /** The command that runs `request`'s files, and the folder it runs in. */
  private async commandFor(
    request: Pick<TestRunRequest, 'framework' | 'files'>,
    reportFile: string,
    signal: AbortSignal,
  ): Promise<{ unit: { cwd: string; files: string[] }; command: TestCommand | { unavailable: string } }> {
    const unit = await this.unitOf(request.files);
    const commonJs = request.framework === 'node:test' && (await commonJsOnly(this.options.root, request.files, signal));
    const command = testCommand(request.framework, {
      root: unit.cwd,
      files: unit.files,
      commonJs,
      reportFile,
      nodeTestReporter: this.options.nodeTestReporter,
      tools: unit.cwd === this.options.root ? this.tools : new ToolResolver(unit.cwd, this.options.fallbackDir),
      coverage: this.options.coverage,
    });
    return { unit, command };
  }

  /**
   * Compiles ahead, while the attempt's other checks go on, the TypeScript these tests will
   * load: their files and the ones the attempt wrote. The run waits for it, and then compiles
   * only what changed since.
   */
  prepare(request: TestsToPrepare, loads: readonly string[]): void {
    if (!this.transforms || this.options.commandOverride?.trim()) return;
    const transforms = this.transforms;
    const signal = new AbortController().signal;
    const ready = (async () => {
      // Nothing runs here: the report's path only shapes the command's arguments, which are not used.
      const { unit, command } = await this.commandFor(request, join(tmpdir(), 'report'), signal);
      await this.firstLook(request.framework, unit.cwd);
      if ('unavailable' in command || !command.tsxCjs) return;
      const sources: [string, Buffer][] = [];
      const named = new Set([...request.files, ...loads].filter((f) => COMPILED_BY_TSX.test(f)));
      for (const f of named) {
        const bytes = await readFile(join(this.options.root, f)).catch(() => undefined);
        if (bytes) sources.push([join(this.options.root, f), bytes]);
      }
      // The rest of the workspace's TypeScript, as the run's own warm-up takes it (runWithReport):
      // one process compiles all of it now, and the run's finds nothing left to do. As the guard
      // last looked at it; before its first look (the run's first command), as it is on disk.
      const kept = this.sideEffects.keptFiles();
      const rest = kept.size ? [...kept] : await typeScriptOf(this.options.root);
      for (const [f, bytes] of rest) if (!named.has(f) && COMPILED_BY_TSX.test(f)) sources.push([join(this.options.root, f), bytes]);
      await transforms.warm(command.tsxCjs, unit.cwd, sources, signal, request.measured === true || this.underV8Coverage(command));
    })();
    ready.catch(() => undefined);
  }

  /**
   * What the run's first command would do before it starts, done ahead, once: the judging tools
   * recorded (no code under test has run yet) and the side-effect guard's first look, which reads
   * every file and sets its watch on the installed packages. The command looks again before it
   * starts, as every command does: this one only finds less to do.
   */
  private firstLook(framework: TestsToPrepare['framework'], cwd: string): Promise<void> {
    this.lookedAhead ??= (async () => {
      const judges = this.options.judgingTools;
      if (judges) await judges.record(framework, [cwd, this.options.root]);
      await this.guardHold.exclusive(() => this.sideEffects.before());
    })().catch(() => undefined);
    return this.lookedAhead;
  }

  /** Whether the command runs under V8's coverage, which changes how tsx compiles (trustedTransforms.ts). */
  private underV8Coverage(command: TestCommand): boolean {
    return Boolean(command.env?.['NODE_V8_COVERAGE'] ?? this.options.env?.['NODE_V8_COVERAGE']);
  }

  private async runWithReport(request: TestRunRequest, signal: AbortSignal, reportFile: string): Promise<TestRunResult> {
    if (this.options.commandOverride?.trim()) return this.runOverride(this.options.commandOverride.trim(), request, signal, reportFile);
    const node = this.options.nodePath ?? 'node';
    const { unit, command } = await this.commandFor(request, reportFile, signal);
    if ('unavailable' in command) {
      return result(request, [node], {
        status: 'error',
        cases: [],
        durationMs: 0,
        output: `[ticket-runner] cannot run ${request.framework}: ${command.unavailable}`,
      });
    }
    const argv = [node, ...command.args];
    if (this.transforms && command.tsxCjs) {
      await this.transforms.warm(command.tsxCjs, unit.cwd, this.sourcesOf(request.files), signal, this.underV8Coverage(command));
      // The warm-up writes nothing in the workspace, but its sandbox may have left the runtime's
      // own mount points where this process runs (kept while another sandbox is live): they are
      // the runtime's, as an earlier command's are, so the tests are judged from a look after it.
      await this.sideEffects.before();
    }
    // The command's preload joins whatever node options the run already gives (V8's coverage).
    if (command.handOver) await writeFile(command.handOver.file, command.handOver.text, { mode: 0o600, flag: 'wx' });
    const nodeOptions = [this.options.env?.['NODE_OPTIONS'], command.env?.['NODE_OPTIONS']].filter(Boolean).join(' ');
    const channel = this.options.onProcesses !== undefined;
    const run = await this.jail.run(node, command.args, {
      cwd: unit.cwd,
      ...(command.tsxCjs && this.transforms?.seed ? { tempSeed: this.transforms.seed } : {}),
      env: {
        ...this.options.env,
        ...command.env,
        ...this.propertyEnvironment(unit.cwd, request),
        ...(nodeOptions ? { NODE_OPTIONS: nodeOptions } : {}),
        ...(channel ? { [PID_CHANNEL_VAR]: String(PID_CHANNEL_FD) } : {}),
      },
      channel,
      // The report is written outside the workspace; the tests it runs stay read-only.
      writable: [dirname(reportFile), ...(this.options.writable ?? [])],
      readOnly: request.files,
      timeoutMs: request.timeoutMs,
      signal,
      tailChars: this.options.outputTailChars ?? 8000,
      keepStdout: command.reportOnStdout === true,
    });
    if (run.stopped === 'abort') throw new CancelledError('test run cancelled');
    if (channel) this.options.onProcesses!(recordedPids(run.channel ?? ''));
    const base = { durationMs: run.durationMs };
    if (run.spawnError) {
      return result(request, argv, {
        ...base,
        status: 'error',
        cases: [],
        output: `${run.output}\n[ticket-runner] could not start ${node}: ${run.spawnError.message}`,
      });
    }

    return this.judge(request, argv, run, reportFile, command);
  }

  /** The verdict from the runner's report, its exit code and how it stopped: a report alone never passes a run. */
  private async judge(
    request: TestRunRequest,
    argv: string[],
    run: GroupRunResult,
    reportFile: string,
    command: Pick<TestCommand, 'parse' | 'reportOnStdout'>,
  ): Promise<TestRunResult> {
    const base = { durationMs: run.durationMs };
    let report: ParsedReport | undefined;
    let problem: string | undefined;
    try {
      const text =
        (await readFile(reportFile, 'utf8').catch(() => undefined)) ?? (command.reportOnStdout ? jsonObjectIn(run.stdout) : undefined);
      // node:test creates the destination file before it loads the reporter, so empty means none.
      if (!text?.trim()) problem = 'the runner wrote no report';
      else report = command.parse(text, this.options.root);
    } catch (err) {
      problem = `the runner's report is unreadable: ${errorMessage(err)}`;
    }
    const mapper = new StackMapper();
    const cases = (report?.cases ?? []).map((c) => (c.stack ? { ...c, stack: mapper.map(c.stack) } : c));

    if (run.stopped === 'timeout') {
      return result(request, argv, {
        ...base,
        status: 'timeout',
        cases,
        output: `${run.output}\n[ticket-runner] killed after ${request.timeoutMs} ms, with its whole process group`,
      });
    }
    if (!report || problem) {
      return result(request, argv, { ...base, status: 'error', cases, output: `${run.output}\n[ticket-runner] ${problem ?? 'no report'}` });
    }
    if (!report.complete || cases.length === 0) {
      const why = report.complete ? 'no test ran' : 'the report stops before its end';
      return result(request, argv, {
        ...base,
        status: 'error',
        cases,
        output: `${run.output}\n[ticket-runner] ${why} (exit code ${String(run.exitCode)})`,
      });
    }
    if (cases.some((c) => c.status === 'failed')) return result(request, argv, { ...base, status: 'failed', cases, output: run.output });
    const plain = run.output.replace(/\x1b\[[\d;]*m/g, '');
    if (run.exitCode === 1 && this.options.coverage && THRESHOLD_MISSED.test(plain) && !UNHANDLED.test(plain)) {
      return result(request, argv, {
        ...base,
        status: 'passed',
        cases,
        output: `${run.output}\n[ticket-runner] every test passed; the runner exited with 1 for the project's own coverage thresholds, which the coverage gate does not judge`,
      });
    }
    // Every test passed yet the runner failed: its own trouble (a config error, a leaked handle).
    if (run.exitCode !== 0) {
      return result(request, argv, {
        ...base,
        status: 'error',
        cases,
        output: `${run.output}\n[ticket-runner] every test passed but the runner exited with ${String(run.exitCode)}`,
      });
    }
    return result(request, argv, { ...base, status: 'passed', cases, output: run.output });
  }
}

/** The words that name a changed runner, for every note that says it. */
const RUNNER_CHANGED = 'the test runner was changed by the code under test';

/**
 * A command's result when the tools that judge it moved while it ran, or before: whatever it
 * reported was the changed runner's word, so it is an error, never a verdict.
 */
function voidedByTools(r: TestRunResult, found: ToolChange[]): TestRunResult {
  // One that stays changed is found by each look, before and after: said once, as the last look left it.
  const changes = [...new Map([...(r.judgingTools ?? []), ...found].map((c) => [c.path, c])).values()];
  const list = (cs: readonly { change: string; path: string }[]) => cs.map((c) => `${c.change} ${c.path}`).join(', ');
  const back = changes.filter((c) => c.restored);
  const kept = changes.filter((c) => !c.restored);
  const notes = [
    ...(back.length
      ? [
          `[ticket-runner] ${RUNNER_CHANGED}; put back as installed, but this result was the changed runner's and does not count: ${list(back)}`,
        ]
      : []),
    ...(kept.length
      ? [`[ticket-runner] ${RUNNER_CHANGED} and could not be restored; reinstall (npm ci) and run again: ${list(kept)}`]
      : []),
    ...(changes.length
      ? []
      : [`[ticket-runner] ${RUNNER_CHANGED} while this command ran (found by another command's look), so this result does not count`]),
  ];
  const judgingTools = changes.map(({ path, change, restored }) => ({ path, change, restored }));
  return { ...r, status: 'error', judgingTools, output: [r.output, ...notes].join('\n') };
}

/** What a command reports that did not run: the tools that would judge it are still changed. */
function notRun(request: TestRunRequest, files: JudgingToolFile[]): TestRunResult {
  const output = `[ticket-runner] not run: ${RUNNER_CHANGED} and could not be restored; reinstall (npm ci) and run again: ${files.map((f) => `${f.change} ${f.path}`).join(', ')}`;
  return {
    ...result(request, [], { status: 'error', cases: [], durationMs: 0, output }),
    judgingTools: files.map(({ path, change }) => ({ path, change, restored: false })),
  };
}

/**
 * The run's result with what it did to the workspace. A change that could not be put back
 * leaves the workspace other than what was judged, and a change to a git hook, `.git/config` or
 * `.vscode/` is an attack on what runs outside the sandbox later: such a run cannot pass.
 */
function withSideEffects(r: TestRunResult, effects: SideEffect[]): TestRunResult {
  const list = (es: SideEffect[]) => es.map((e) => `${e.change} ${e.path}`).join(', ');
  const installed = effects.filter((e) => inInstalledPackages(e.path));
  const installedBack = installed.filter((e) => e.restored);
  const installedKept = installed.filter((e) => !e.restored);
  const kept = effects.filter((e) => !e.restored && !inInstalledPackages(e.path));
  const undone = effects.filter((e) => e.restored && !inInstalledPackages(e.path));
  const armed = effects.filter((e) => runsCodeLater(e.path));
  const notes = [
    ...(undone.length ? [`[ticket-runner] the test run changed the workspace; put back as it was: ${list(undone)}`] : []),
    ...(kept.length
      ? [`[ticket-runner] the test run changed the workspace and it could not be put back, so this run cannot pass: ${list(kept)}`]
      : []),
    ...(armed.length
      ? [`[ticket-runner] the test run changed what git or the editor runs outside any sandbox, so this run cannot pass: ${list(armed)}`]
      : []),
    ...(installedBack.length
      ? [
          `[ticket-runner] the test run changed the installed packages (node_modules), which no test may write, so this run cannot pass; put back as installed: ${list(installedBack)}`,
        ]
      : []),
    ...(installedKept.length
      ? [
          `[ticket-runner] the test run changed the installed packages (node_modules), which no test may write, so this run cannot pass: ${list(installedKept)}; reinstall them (npm ci) to have them as published`,
        ]
      : []),
  ];
  const fails = kept.length > 0 || armed.length > 0 || installed.length > 0;
  return {
    ...r,
    status: fails && r.status === 'passed' ? 'failed' : r.status,
    sideEffects: effects,
    output: [r.output, ...notes].join('\n'),
  };
}

function result(
  request: TestRunRequest,
  command: string[],
  r: { status: TestRunResult['status']; cases: TestCaseResult[]; durationMs: number; output: string },
): TestRunResult {
  const count = (status: TestCaseResult['status']): number => r.cases.filter((c) => c.status === status).length;
  return {
    status: r.status,
    framework: request.framework,
    command,
    passed: count('passed'),
    failed: count('failed'),
    skipped: count('skipped'),
    durationMs: r.durationMs,
    cases: r.cases,
    output: r.output,
  };
}

/** The workspace's TypeScript that tsx compiles, by path from the root, with its bytes: the files the guard keeps, as many as a warm-up takes. */
async function typeScriptOf(root: string): Promise<[string, Buffer][]> {
  const { entries } = await walkTree(root, { skip: SKIPPED, changing: true });
  const out: [string, Buffer][] = [];
  for (const [rel, st] of entries) {
    if (out.length >= MAX_FILES) break;
    if (!st.isFile() || st.size > MAX_IN_MEMORY_BYTES || !COMPILED_BY_TSX.test(rel)) continue;
    const bytes = await readFile(join(root, rel)).catch(() => undefined);
    if (bytes) out.push([rel, bytes]);
  }
  return out;
}
