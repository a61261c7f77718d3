import { z } from 'zod';
import { CodeDiagnostic, LintProblem } from './checks';
import { TestPlan } from './testPlan';

/**
 * The end-of-ticket gates, in the order they run. The names are the values of the
 * `ticketRunner.gates` setting and of the CLI's `--gates` flag.
 */
export const GATE_NAMES = ['typecheck', 'lint', 'build', 'projectTests', 'implementationReview', 'testReview', 'coverage'] as const;
export const GateName = z.enum(GATE_NAMES);
export type GateName = z.infer<typeof GateName>;

/** The detail of a `gate.ran` for a gate the run was not asked to run: the one skip that says nothing about the change. */
export const GATE_NOT_ENABLED = 'not enabled';

/**
 * Which of the project's test files a question ran: those that reach the change through imports
 * (of `suite` files), or the whole suite because the project asks for it (`setting`) or because
 * which tests reach the change could not be worked out (`fallback`, with why).
 */
export const ProjectTestSelection = z.discriminatedUnion('by', [
  z.object({ by: z.literal('reach'), suite: z.number().int().nonnegative() }).strict(),
  z.object({ by: z.literal('setting') }).strict(),
  z.object({ by: z.literal('fallback'), why: z.string() }).strict(),
]);
export type ProjectTestSelection = z.infer<typeof ProjectTestSelection>;

/** One complaint of the Implementation Reviewer: what blocks the change, where, and why. */
export const ReviewBlocker = z
  .object({
    file: z.string().optional().describe('The workspace-relative file the blocker is in, when it is in one'),
    claim: z.string().min(1).describe('One specific sentence: what is wrong'),
    evidence: z.string().optional().describe('Text quoted verbatim from the diff or the files shown'),
  })
  .strict();
export type ReviewBlocker = z.infer<typeof ReviewBlocker>;

/**
 * The Implementation Reviewer's answer. A failing verdict names at least one blocker and a
 * passing one names none: a pass with blockers would leave the gate nothing to decide on.
 */
export const ReviewVerdict = z
  .object({
    verdict: z.enum(['pass', 'fail']),
    blockers: z.array(ReviewBlocker).default([]),
  })
  .strict()
  .superRefine((v, issue) => {
    if (v.verdict === 'fail' && v.blockers.length === 0)
      issue.addIssue({ code: 'custom', path: ['blockers'], message: 'a failing verdict needs at least one blocker' });
    if (v.verdict === 'pass' && v.blockers.length > 0)
      issue.addIssue({ code: 'custom', path: ['blockers'], message: 'a passing verdict lists no blockers' });
  });
export type ReviewVerdict = z.infer<typeof ReviewVerdict>;

/** The Test Reviewer's answer: per acceptance criterion, whether the rendered tests check it. */
export const TestReview = z
  .object({
    verdict: z.enum(['pass', 'fail']),
    criteria: z
      .array(
        z
          .object({
            id: z.string().min(1).describe('The acceptance criterion id'),
            covered: z.boolean(),
            claim: z.string().optional().describe('Why it is or is not covered'),
            evidence: z
              .string()
              .optional()
              .describe(
                'For a criterion that is not covered: text quoted verbatim from the rendered tests (the case that names the criterion but does not check it)',
              ),
          })
          .strict(),
      )
      .default([]),
    claim: z.string().optional().describe('One sentence: what is wrong with the tests, when the verdict is fail'),
    proposedTestPlan: TestPlan.optional().describe('The whole corrected test plan, when the verdict is fail'),
  })
  .strict();
export type TestReview = z.infer<typeof TestReview>;

/** Which tool answered the type-check, so a fallback is never silent. */
export const TypeCheckTool = z
  .object({
    name: z.string().describe('tsc'),
    version: z.string(),
    source: z.enum(['workspace', 'bundled']).describe("workspace: its own node_modules; bundled: Ticket Runner's"),
  })
  .strict();
export type TypeCheckTool = z.infer<typeof TypeCheckTool>;

/** Changed lines of one file that no test executed. */
export const UncoveredLines = z.object({ file: z.string(), lines: z.array(z.number().int().positive()) }).strict();
export type UncoveredLines = z.infer<typeof UncoveredLines>;

/** The typed facts behind a gate's verdict: views and repairs read these, never the detail text. */
export const GateEvidence = z.discriminatedUnion('kind', [
  z
    .object({
      kind: z.literal('typecheck'),
      tool: TypeCheckTool.nullable(),
      /** Errors in files that import the change, directly or not: these fail the gate. */
      diagnostics: z.array(CodeDiagnostic),
      /** Errors in files the change cannot reach: there before the run, reported and not counted. */
      unrelated: z.array(CodeDiagnostic),
      /** Errors the baseline had before the run's first write (matched by file, code and message): not counted. */
      preExisting: z.array(CodeDiagnostic).default([]),
    })
    .strict(),
  z
    .object({
      kind: z.literal('lint'),
      files: z.array(z.string()),
      /** The findings the run introduced: these fail the gate. */
      problems: z.array(LintProblem),
      /** Findings the baseline had before the run: not counted. */
      preExisting: z.array(LintProblem).default([]),
    })
    .strict(),
  z.object({ kind: z.literal('build'), command: z.string(), exitCode: z.number().int().nullable(), output: z.string() }).strict(),
  z
    .object({
      kind: z.literal('projectTests'),
      files: z.array(z.string()),
      /** Cases that passed before the run and fail now (file › name): these fail the gate. */
      newlyFailing: z.array(z.string()),
      /** Cases that already failed before the run: not counted. */
      preExisting: z.array(z.string()),
      /** Why these files and not others; absent in logs written when the gate always ran the whole suite. */
      selection: ProjectTestSelection.optional(),
    })
    .strict(),
  z
    .object({
      kind: z.literal('implementationReview'),
      verdict: z.enum(['pass', 'fail']).nullable().describe('null: no usable verdict'),
      blockers: z.array(ReviewBlocker),
      /** Answers refused (schema) and blockers dropped (quote or file not found), with why. */
      rejected: z.array(z.string()),
      /** The hash of the reviewed diff: the same code is not reviewed twice in a run. */
      diffHash: z.string().optional(),
    })
    .strict(),
  z
    .object({
      kind: z.literal('testReview'),
      verdict: z.enum(['pass', 'fail']).nullable(),
      /** Acceptance criteria no test case names: the deterministic fact. */
      untagged: z.array(z.string()),
      /** Criteria the reviewer judged uncovered. */
      uncovered: z.array(z.string()),
      claim: z.string().optional(),
      rejected: z.array(z.string()),
    })
    .strict(),
  z
    .object({
      kind: z.literal('coverage'),
      changedLines: z.number().int(),
      coveredLines: z.number().int(),
      /** The fraction of changed executable lines that must run, from the settings. */
      threshold: z.number(),
      uncovered: z.array(UncoveredLines),
      /** Changed files the ticket's tests never loaded that are not counted: types or imports only (in older logs, also those the project's own tests reach). */
      unloaded: z.array(z.string()),
      /** Who measured: V8's script coverage, or the runner's own tool (absent in older logs). */
      source: z.enum(['v8', 'vitest', 'jest']).optional(),
      /** Changed files the runner's own tool left out of its report: every changed code line of them counted as not run. */
      absent: z.array(z.string()).optional(),
      /** Changed files no ticket test loaded that the project's own tests reach: their changed lines measured under those tests. */
      byProjectTests: z.array(z.string()).optional(),
    })
    .strict(),
]);
export type GateEvidence = z.infer<typeof GateEvidence>;

/** Where a repair pass ended. `done`: it ran to its end (see `ok` for the verdict). */
export const RepairStage = z.enum(['prompt', 'model', 'write', 'parse', 'regression', 'gate', 'recheck', 'done']);
export type RepairStage = z.infer<typeof RepairStage>;

/** The mini regression after a repair: which tests had to pass, and which did not. */
export const RegressionResult = z
  .object({
    required: z.array(z.string()).describe('Every test that passed before the repair, and every one that failed'),
    failed: z.array(z.string()).describe('Required tests that did not pass after the repair'),
    status: z.enum(['passed', 'failed', 'timeout', 'error']),
  })
  .strict();
export type RegressionResult = z.infer<typeof RegressionResult>;
