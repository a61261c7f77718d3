import type { AppliedFix, CodeDiagnostic, LintProblem, ParseProblem, TestRunResult, WorkspaceEdit } from '../schema/checks';
import type { JudgingToolFile } from '../schema/events';
import type { TestFramework } from '../schema/testPlan';

/** A name a file exports, or a member of one, with its type as TypeScript prints it. */
export interface SymbolEntry {
  name: string;
  type: string;
}

/** Tree-sitter: syntax problems of one file. */
export interface ParserPort {
  parse(path: string, content: string): Promise<ParseProblem[]>;
  /**
   * The file's code structure for the repeat guard: one entry per statement (its own tokens,
   * not those of the statements nested in it), with every identifier written `$id`, every
   * string, number, template and regex `$lit`, and comments and layout gone. A renamed
   * variable or a reformatted line leaves it unchanged.
   */
  shape?(path: string, content: string): Promise<string[]>;
  /**
   * A hint: files like these will be parsed soon, so load what their parse needs now. Optional;
   * nothing waits on it, and a failure here is the first parse's to meet and report.
   */
  warm?(paths: readonly string[], signal: AbortSignal): Promise<void>;
}

/**
 * A TypeScript language service: the headless one (in a worker thread), or the editor's own.
 * `check` reports errors in the changed files and the files that import them.
 */
export interface DiagnosticsPort {
  /** `checkedBy` says, in words, which service judged the files (an editor may hand some to a headless service). */
  check(changed: string[], signal: AbortSignal): Promise<{ checkedFiles: string[]; diagnostics: CodeDiagnostic[]; checkedBy?: string }>;
  /**
   * Applies the language service's own code fixes for structural errors in `files`.
   * `allow` says whether a fix may touch a file; a fix touching any other file is refused.
   */
  autofix(
    files: string[],
    allow: (path: string) => boolean,
    signal: AbortSignal,
  ): Promise<{ applied: AppliedFix[]; refused: AppliedFix[] }>;
  /**
   * Type-checks a file that exists only in memory at `path` (a type probe) and returns its
   * diagnostics; nothing is written. `overlays` replace other files' contents for this check
   * only (the code as it was before the Coder wrote it). Optional: without it, the checks that
   * need it abstain.
   */
  probe?(
    path: string,
    content: string,
    signal: AbortSignal,
    overlays?: readonly { path: string; content: string }[],
  ): Promise<CodeDiagnostic[]>;
  /** Resolves `Type` or `Type.member` declared in `file`; the type text, or null when it does not resolve. */
  resolveSymbol(file: string, symbol: string): Promise<string | null>;
  /**
   * The names `file` exports (no `owner`), or the members of `owner` (`Type` or `Type.member`)
   * declared in it, each with its type text. Optional: the ticket language server's completion
   * and hover use it, and go without.
   */
  symbolsOf?(file: string, owner?: string): Promise<SymbolEntry[]>;
  dispose?(): void;
}

export interface LintPort {
  /**
   * skipped: the workspace has no linter (nothing to judge); error: it has one that could not
   * run (a config that throws): nothing was judged, and an end-of-ticket gate fails closed on it.
   */
  lint(
    files: string[],
    signal: AbortSignal,
  ): Promise<{ status: 'passed' | 'failed' | 'skipped' | 'error'; problems: LintProblem[]; detail?: string }>;
  /** Ends what the linter keeps alive between calls (its worker process). */
  dispose?(): void;
}

export interface TestRunRequest {
  framework: TestFramework;
  files: string[];
  timeoutMs: number;
  /**
   * The seed of the rendered properties (fast-check) for this run: the attempt's, from the log.
   * The runner hands it to the test processes, whose preload pins it before the code under test
   * loads (`PROPERTY_SEED_KEY`). Absent: the plan has no property, or the files are not the plan's.
   */
  propertySeed?: number;
}

/**
 * The tests a runner may get ready for. `measured`: they will run with the coverage gate's
 * measure (V8's, where the runner measures as it runs), which changes how their TypeScript is
 * compiled, so what is compiled ahead must be compiled that way too.
 */
export type TestsToPrepare = Pick<TestRunRequest, 'framework' | 'files'> & { measured?: boolean };

export interface TestRunnerPort {
  run(request: TestRunRequest, signal: AbortSignal): Promise<TestRunResult>;
  /**
   * A hint, never a result: `request`'s tests will run soon, and may load `loads` (the code
   * files the run has written so far, the attempt's first). A runner may get ready meanwhile
   * (compile them ahead) while the other checks go on. Optional; it never throws, and never
   * changes what a run reports.
   */
  prepare?(request: TestsToPrepare, loads: readonly string[]): void;
  /**
   * The installed tools that judge the tests (the runner, its circus or reporter, the assertion
   * library, the transformer, and the packages they require), looked at now against what was
   * recorded before the run's first test command. A change is put back from the recorded copy
   * when it can be; what could not be put back is returned: no verdict of this run may be taken
   * on those tools. Optional: a runner without it has nothing recorded.
   */
  unrestoredTools?(signal: AbortSignal): Promise<JudgingToolFile[]>;
  /**
   * Which of `files` (recorded by an earlier process of the run) still differ from their
   * recorded hash: `resume` goes on only when none does.
   */
  stillChangedTools?(files: readonly JudgingToolFile[]): Promise<JudgingToolFile[]>;
  /**
   * The workspace's files that changed while a test command ran and that nothing tells who wrote
   * (no OS sandbox kept the command out, and the editor saved no such text): each is kept as it
   * is, and no verdict of this run may be taken. Optional: a runner that runs in the workspace
   * itself has none to tell.
   */
  unattributedWrites?(): string[];
  /**
   * The workspace's files the user saved while a test command ran, since the last call: the run
   * logs them (`userSaves.kept`), each kept as saved. Optional, as `unattributedWrites` is.
   */
  userSavesSeen?(): WorkspaceEdit[];
  /** Drops what the runner keeps between runs (its snapshots of the workspace, its copy of it). */
  dispose?(): void | Promise<void>;
}
