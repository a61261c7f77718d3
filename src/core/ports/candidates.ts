import type { DiagnosticsPort, LintPort, ParserPort, TestRunnerPort } from './checks';
import type { WorkspacePort } from './workspace';

/** A file the Coder proposes, not yet written anywhere. */
export interface CandidateFile {
  path: string;
  content: string;
}

/**
 * A scratch copy of the workspace with the candidate files in it, and the checks bound to
 * that copy. The post-write checks run on it unchanged, so the Coder's `run_tests` tool
 * (rung 4) sees exactly what a real attempt would, and the workspace is never written.
 */
export interface CandidateOverlay {
  /** The copy's absolute root. */
  root: string;
  workspace: WorkspacePort;
  tests: TestRunnerPort;
  parser?: ParserPort;
  diagnostics?: DiagnosticsPort;
  lint?: LintPort;
  /** Removes the copy and releases its checks (a language service holds a program). */
  dispose(): Promise<void>;
}

/**
 * Makes candidate overlays: one per `run_tests` call, disposed before the next. An adapter
 * may keep one copy across a run's calls, if no call sees what an earlier one wrote.
 */
export interface CandidateCheckPort {
  open(files: CandidateFile[], signal: AbortSignal): Promise<CandidateOverlay>;
  /** Releases what the port keeps across calls: the run is over. */
  dispose?(): Promise<void>;
}
