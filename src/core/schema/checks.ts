import { z } from 'zod';

/** A syntax problem found by Tree-sitter: an ERROR or MISSING node. */
export const ParseProblem = z
  .object({
    file: z.string(),
    line: z.number().int().describe('1-based'),
    column: z.number().int().describe('1-based'),
    kind: z.enum(['ERROR', 'MISSING']),
    text: z.string().describe('The node text, or the missing token'),
  })
  .strict();
export type ParseProblem = z.infer<typeof ParseProblem>;

/** One diagnostic from a TypeScript language service (headless or the editor's own). */
export const CodeDiagnostic = z
  .object({
    file: z.string(),
    line: z.number().int().describe('1-based'),
    column: z.number().int().describe('1-based'),
    code: z.string().describe('TS2322 and the like'),
    category: z.enum(['error', 'warning', 'suggestion']),
    message: z.string(),
  })
  .strict();
export type CodeDiagnostic = z.infer<typeof CodeDiagnostic>;

/** A structural fix applied from the language service's own code fixes, with no model call. */
export const AppliedFix = z
  .object({
    file: z.string(),
    code: z.string().describe('The diagnostic code the fix answered'),
    fixName: z.string(),
    description: z.string(),
    files: z.array(z.string()).describe('Every file the fix changed'),
  })
  .strict();
export type AppliedFix = z.infer<typeof AppliedFix>;

export const LintProblem = z
  .object({
    file: z.string(),
    line: z.number().int(),
    column: z.number().int(),
    rule: z.string().nullable(),
    severity: z.enum(['error', 'warning']),
    message: z.string(),
  })
  .strict();
export type LintProblem = z.infer<typeof LintProblem>;

export const TestCaseResult = z
  .object({
    name: z.string().describe('The full name, suite and case'),
    file: z.string().optional(),
    status: z.enum(['passed', 'failed', 'skipped']),
    durationMs: z.number().optional(),
    message: z.string().optional(),
    expected: z.string().optional(),
    actual: z.string().optional(),
    stack: z.string().optional(),
  })
  .strict();
export type TestCaseResult = z.infer<typeof TestCaseResult>;

/** A file of the workspace that changed while a test command ran, and who the run found wrote it. */
export const WorkspaceEdit = z
  .object({
    path: z.string(),
    change: z.enum(['created', 'modified', 'deleted']),
    by: z.enum(['user', 'unknown']),
    keptCopy: z.string().optional().describe('From the workspace root: where the run kept the file as it found it'),
    /** A git hook, `.git/config` or `.vscode/` file, which runs outside any sandbox later: put back as it was (the found version kept). */
    putBack: z.literal(true).optional(),
  })
  .strict();
export type WorkspaceEdit = z.infer<typeof WorkspaceEdit>;

/** The typed result of one run of the workspace's test runner. */
export const TestRunResult = z
  .object({
    status: z.enum(['passed', 'failed', 'timeout', 'error']),
    framework: z.string(),
    command: z.array(z.string()),
    passed: z.number().int(),
    failed: z.number().int(),
    skipped: z.number().int(),
    durationMs: z.number(),
    cases: z.array(TestCaseResult),
    /** The tail of the runner's raw output, kept for the Debugger's quotes. */
    output: z.string(),
    /** Files the test run created, changed or deleted in the workspace, each put back as it was when it could be. */
    sideEffects: z
      .array(z.object({ path: z.string(), change: z.enum(['created', 'modified', 'deleted']), restored: z.boolean() }).strict())
      .optional(),
    /**
     * Files of the installed tools that judge the tests (the runner and what it loads) found
     * changed before or after this command, each put back from the run's copy when it could be.
     * Any entry makes the result void: it never passes, whichever command made the change.
     */
    judgingTools: z
      .array(z.object({ path: z.string(), change: z.enum(['created', 'modified', 'deleted']), restored: z.boolean() }).strict())
      .optional(),
    /**
     * Files of the workspace that changed while this command ran in the run's copy of it (what
     * the user saved beside the run), each kept as it is. `by: 'user'`: nothing of the command
     * could write there (the OS sandbox), or the editor saved exactly that text. `by: 'unknown'`:
     * without the sandbox nothing tells who wrote it; `keptCopy` holds what was found, under the
     * run store (and one that git or the editor runs is put back), and the result is void: it
     * never passes, and the run stops.
     */
    workspaceEdits: z.array(WorkspaceEdit).optional(),
  })
  .strict();
export type TestRunResult = z.infer<typeof TestRunResult>;
