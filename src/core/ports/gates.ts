import type { CodeDiagnostic, TestRunResult } from '../schema/checks';
import type { TypeCheckTool } from '../schema/gates';
import type { TestRunRequest } from './checks';

/**
 * The project-wide type-check of the end-of-ticket gates: every file of the workspace's
 * tsconfig, with the workspace's own TypeScript. Unlike DiagnosticsPort.check, which looks at
 * the changed files and their direct importers, this finds an error anywhere the change reaches.
 * `scope`: the paths the run may change. In an npm-workspaces monorepo the check covers the
 * packages that hold them and every package that depends on those (each with its own
 * tsconfig), not the root's; elsewhere it is the root's tsconfig whatever the scope.
 */
export interface TypeCheckPort {
  check(signal: AbortSignal, scope?: readonly string[]): Promise<TypeCheckResult>;
  /**
   * Starts the check of `scope` now, beside other work (an attempt's tests), for the next
   * `check` of the same scope to take, but only if no file of the workspace changed from the
   * moment this resolves to the end of that check; otherwise `check` checks again. Resolves once
   * the workspace's state is taken, before anything started after it could write. `drop` stops
   * the check early (the attempt failed: no gate will ask).
   */
  prefetch?(signal: AbortSignal, scope?: readonly string[]): Promise<{ drop(): void }>;
  /**
   * A hint, when nothing was checked yet (the baseline came from an earlier run): the checker may
   * load the project for `scope` now, beside the run's other first steps, so that the checks to
   * come find it loaded. Its result is never used. Optional; it never throws.
   */
  warm?(signal: AbortSignal, scope?: readonly string[]): void;
  /** Releases what the checker keeps between checks (its incremental state). */
  dispose?(): void;
}

export interface TypeCheckResult {
  /** skipped: nothing to check (no tsconfig.json); error: the checker itself failed to run. */
  status: 'passed' | 'failed' | 'skipped' | 'error';
  /** Errors first; workspace-relative paths. */
  diagnostics: CodeDiagnostic[];
  /** null when no checker ran. */
  tool: TypeCheckTool | null;
  /** One line for the report: what ran, and any fallback. */
  detail: string;
  durationMs: number;
}

/** Runs the workspace's build command (a shell command line) with a time limit. */
export interface BuildPort {
  run(command: string, timeoutMs: number, signal: AbortSignal): Promise<BuildResult>;
}

export interface BuildResult {
  status: 'passed' | 'failed' | 'timeout' | 'error';
  exitCode: number | null;
  /** The tail of the combined output. */
  output: string;
  durationMs: number;
}

/** Executable lines of one workspace file and how often each ran. */
export interface FileLineHits {
  file: string;
  /** [line (1-based), hits] for every executable line the runner knows of. */
  lines: [number, number][];
}

/** Who measured: V8's script coverage, or the runner's own tool. */
export type CoverageSource = 'v8' | 'vitest' | 'jest';

export interface CoverageResult {
  /**
   * unavailable: the runner cannot measure coverage here; error: it ran but left no usable
   * measure (no report, or one that is not a report of this code). The detail says why.
   */
  status: 'measured' | 'unavailable' | 'error';
  source?: CoverageSource;
  /** The test run that was measured (none when unavailable). */
  tests?: TestRunResult;
  /** Only the files asked for that the measure knows; see `absent`. */
  files: FileLineHits[];
  /**
   * Files asked for by name that the runner's own tool left out of its report (the project's
   * coverage settings excluded them, or it never measured them): their changed lines count as
   * uncovered. V8 coverage names no such files: see `unloaded`.
   */
  absent?: string[];
  /**
   * V8: files asked for that no test process loaded. They are in `files` with their executable
   * lines at 0 (a types-only module has none, and is left out of both).
   */
  unloaded?: string[];
  detail?: string;
}

/** A measured test run whose result came back when its tests ended, and whose measure may still be read. */
export interface MeasuredRun {
  /** The test run (none when the runner could not measure). */
  tests?: TestRunResult;
  /** The run's measure, with `tests` in it; it settles on its own, and never rejects (an unusable measure is an `error`). */
  coverage: Promise<CoverageResult>;
}

/** The workspace's test runner, run once with its own coverage. */
export interface CoveragePort {
  run(request: TestRunRequest & { measure: string[] }, signal: AbortSignal): Promise<CoverageResult>;
  /**
   * Whether measuring costs this runner's test run next to nothing (V8's own counters), so the
   * run that judges an attempt can measure as it judges and the gate need not run the tests again.
   */
  measuresAsItRuns?(framework: TestRunRequest['framework']): boolean;
  /**
   * As `run`, but back as soon as the tests have ended, the measure read meanwhile: the run that
   * judges an attempt goes on to its next check while the measure it took is read. Optional.
   */
  measuredRun?(request: TestRunRequest & { measure: string[] }, signal: AbortSignal): Promise<MeasuredRun>;
}
