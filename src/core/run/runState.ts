import { z } from 'zod';
import { AppliedFix, CodeDiagnostic, LintProblem, ParseProblem, TestRunResult } from '../schema/checks';
import { CorrectionRequest, MachineFact } from '../schema/correction';
import { Diagnosis } from '../schema/diagnosis';
import {
  Budget,
  FileRef,
  ModelAdaptation,
  ModelInfo,
  ModelRole,
  PlanLink,
  RecoveryPolicy,
  ReusedFrom,
  Route,
  RunOutcome,
  RunOwner,
  StopReason,
  UserEditConflict,
  UserEditWriter,
} from '../schema/events';
import { GateEvidence, RegressionResult, RepairStage } from '../schema/gates';
import { Manifest } from '../schema/manifest';
import { TicketOp } from '../schema/ticket';

/**
 * What a run's log reduces to (`reduceRun`), as one zod schema: the TypeScript types are
 * derived from it, and the webview parses what the host sends with it, so the reducer and the
 * views cannot drift apart.
 */

const Tampered = z.object({ path: z.string(), at: z.string() });

export const AttemptStateSchema = z.object({
  n: z.number().int(),
  brief: z.string().optional(),
  /** An attempt with no Coder answer: the tests ran again over the code as it was, and why. */
  recheck: z.string().optional(),
  /** The files the Coder answered with. */
  files: z.array(FileRef),
  written: z.array(z.object({ path: z.string(), before: z.string().nullable(), after: z.string() })),
  refused: z.array(z.object({ path: z.string(), reason: z.string(), detail: z.string() })),
  /** The Coder's edits the file editor refused (the model was told, and went on). */
  editRefusals: z.array(z.object({ command: z.string(), path: z.string(), detail: z.string() })).optional(),
  /** The Coder's answers cut at the token limit: their unfinished part was never written. */
  cuts: z.array(z.object({ outputTokens: z.number(), final: z.boolean(), detail: z.string() })).optional(),
  parse: z.object({ ok: z.boolean(), problems: z.array(ParseProblem) }).optional(),
  diagnostics: z
    .object({
      ok: z.boolean(),
      checkedFiles: z.array(z.string()),
      diagnostics: z.array(CodeDiagnostic),
      preExisting: z.array(CodeDiagnostic),
      durationMs: z.number(),
      checkedBy: z.string().optional(),
    })
    .optional(),
  autofix: z.object({ applied: z.array(AppliedFix), refused: z.array(AppliedFix) }).optional(),
  lint: z
    .object({
      status: z.enum(['passed', 'failed', 'skipped', 'error']),
      problems: z.array(LintProblem),
      preExisting: z.array(LintProblem),
      detail: z.string().optional(),
    })
    .optional(),
  tests: TestRunResult.optional(),
  /** The seed the attempt's properties drew their inputs from (fast-check's), when the plan has a property. */
  propertySeed: z.number().int().optional(),
  /** The project's own tests that import a changed file, run once the ticket's tests passed. */
  projectTests: z
    .object({ files: z.array(z.string()), result: TestRunResult, newlyFailing: z.array(z.string()), preExisting: z.array(z.string()) })
    .optional(),
  /** The held-out cases' run (generalize), once the visible cases passed; `criteria` of the cases that failed. */
  heldOut: z
    .object({ status: TestRunResult.shape.status, passed: z.number(), failed: z.number(), criteria: z.array(z.string()) })
    .optional(),
  diagnosis: Diagnosis.nullable().optional(),
  rejectedDiagnoses: z.array(z.object({ reason: z.string(), missingQuotes: z.array(z.string()) })),
  route: z
    .object({ claimed: z.string().nullable(), route: Route, verdict: z.string(), fact: MachineFact.optional(), detail: z.string() })
    .optional(),
  /** The recovery rungs that fired for this attempt, in order: its receipts. */
  rungs: z.array(z.object({ rung: z.number(), reason: z.string(), trigger: z.string().optional(), thinking: z.boolean().optional() })),
  anomalies: z.array(
    z.object({
      role: ModelRole,
      score: z.number(),
      urgent: z.boolean(),
      signals: z.array(z.object({ name: z.string(), weight: z.number(), detail: z.string() })),
    }),
  ),
  /** Rendered tests or the ticket the code under test changed during this attempt (restored since). */
  tampered: z.array(Tampered),
  /** passed, failed, or pending while its checks run. */
  status: z.enum(['pending', 'passed', 'failed']),
});
export type AttemptState = z.infer<typeof AttemptStateSchema>;

export const CorrectionStateSchema = z.object({
  request: CorrectionRequest,
  /** What Accept writes into the ticket (a unified diff), or why it cannot apply. */
  preview: z.object({ path: z.string(), diff: z.string().optional(), problem: z.string().optional() }).optional(),
  status: z.enum(['pending', 'accepted', 'rejected']),
  reason: z.string().optional(),
  by: z.string().optional(),
});
export type CorrectionState = z.infer<typeof CorrectionStateSchema>;

export const ModelCallStateSchema = z.object({
  role: ModelRole,
  attempt: z.number(),
  model: ModelInfo,
  ok: z.boolean(),
  error: z.string().optional(),
  inputTokens: z.number(),
  outputTokens: z.number(),
  costUsd: z.number(),
  latencyMs: z.number(),
  retries: z.number(),
  /** Blobs of the call's full request and raw answer (`show --prompts`). */
  prompt: z.string().optional(),
  answer: z.string().optional(),
  /** The provider's receipts: how it fitted the call to its API. */
  adaptations: z.array(ModelAdaptation).optional(),
});
export type ModelCallState = z.infer<typeof ModelCallStateSchema>;

export const RunStateSchema = z.object({
  runId: z.string(),
  ticketId: z.string(),
  ticketPath: z.string(),
  model: ModelInfo.optional(),
  budget: Budget.optional(),
  recovery: RecoveryPolicy.optional(),
  /** Whether tests, tools and gates ran in the OS sandbox (absent in older logs). */
  sandbox: z.object({ on: z.boolean(), detail: z.string() }).optional(),
  startedAt: z.string().optional(),
  /** The plan this run is a ticket of, when it is one. */
  plan: PlanLink.optional(),
  updatedAt: z.string().optional(),
  status: z.union([z.literal('running'), RunOutcome]),
  finished: z.object({ outcome: RunOutcome, reason: StopReason, attempts: z.number() }).optional(),
  manifest: Manifest.optional(),
  manifestHash: z.string().optional(),
  testFiles: z.array(FileRef),
  framework: z.string().optional(),
  ops: z.array(
    z.object({ index: z.number(), op: TicketOp, ok: z.boolean(), reason: z.string().optional(), suggestion: z.string().optional() }),
  ),
  /** The diagnostics after the ops applied, and the errors they brought in. */
  opsCheck: z
    .object({ checkedFiles: z.array(z.string()), diagnostics: z.array(CodeDiagnostic), introduced: z.array(CodeDiagnostic) })
    .optional(),
  attempts: z.array(AttemptStateSchema),
  corrections: z.array(CorrectionStateSchema),
  /** Every run of a gate, in order: the last entry of a gate is its verdict. */
  gates: z.array(
    z.object({
      gate: z.string(),
      status: z.string(),
      detail: z.string(),
      repaired: z.boolean(),
      afterRepairOf: z.string().optional(),
      durationMs: z.number().optional(),
      evidence: GateEvidence.optional(),
      optional: z.boolean().optional(),
    }),
  ),
  /**
   * How many gate runs and repairs were on record when the last attempt passed: what comes after
   * is its gate step, which a resume after that attempt runs again (and drops from the view).
   */
  gateStepFrom: z.object({ gates: z.number().int(), repairs: z.number().int() }).optional(),
  /** Optional gates whose last run could not judge the change: a pass says so first. */
  notJudged: z.array(z.object({ gate: z.string(), detail: z.string() })),
  repairs: z.array(
    z.object({
      gate: z.string(),
      ok: z.boolean(),
      detail: z.string(),
      files: z.array(FileRef),
      stage: RepairStage.optional(),
      error: z.object({ name: z.string(), message: z.string() }).optional(),
      complaints: z.array(z.string()).optional(),
      regression: RegressionResult.optional(),
      reverted: z.boolean().optional(),
    }),
  ),
  modelCalls: z.array(ModelCallStateSchema),
  usage: z.object({ calls: z.number(), inputTokens: z.number(), outputTokens: z.number(), costUsd: z.number(), retries: z.number() }),
  workspace: z.string(),
  resumes: z.array(z.object({ from: z.string(), reason: z.string() })),
  /** Files in scope with uncommitted changes when the run started. */
  uncommitted: z.array(z.string()),
  /** The process that last drove the run (run.started, run.resumed), when the log says. */
  owner: RunOwner.optional(),
  rolledBack: z.boolean(),
  /** The findings that were there before the run's first write: never counted against it. */
  baseline: z
    .object({
      checkedFiles: z.array(z.string()),
      diagnostics: z.array(CodeDiagnostic),
      lint: z.array(LintProblem),
      project: z.array(CodeDiagnostic).optional(),
      /** `project` was an earlier run's measurement, reused. */
      projectReusedFrom: ReusedFrom.optional(),
    })
    .optional(),
  /** The project's own tests before the run's first write, and the cases that already failed; `reusedFrom`: an earlier run's results, reused. */
  projectTestsBaseline: z
    .object({ files: z.array(z.string()), status: z.string(), failing: z.array(z.string()), reusedFrom: ReusedFrom.optional() })
    .optional(),
  /**
   * What judged the change: the test runs of the last attempt, the one the verdict rests on,
   * counted (absent until that attempt's tests ran). `visible`: the cases its visible run reported;
   * `heldOut`: the held-out cases it ran (0 when they did not run, or the ticket holds none out);
   * `propertyRuns`: the generated inputs property expectations ran (0: no expectation kind runs any
   * yet). `heldOutFailed` of them failed, for the criteria `heldOutCriteria`.
   */
  judgedBy: z
    .object({
      attempt: z.number().int(),
      visible: z.number().int(),
      heldOut: z.number().int(),
      propertyRuns: z.number().int(),
      heldOutFailed: z.number().int(),
      heldOutCriteria: z.array(z.string()),
    })
    .optional(),
  /** Oracle changes found outside any attempt (by a gate's tools, or before the verdict). */
  tampered: z.array(Tampered),
  /**
   * Each file in scope the user changed while the run worked on it, when the run came to write it:
   * `merged` (the user's change and the run's were both written) or `kept` (the run's write was not
   * made; `conflicts` are the lines where the versions differ).
   */
  userEdits: z.array(
    z.object({
      path: z.string(),
      by: UserEditWriter,
      attempt: z.number().int(),
      outcome: z.enum(['merged', 'kept']),
      conflicts: z.array(UserEditConflict),
    }),
  ),
  /** Files the user saved while the run's tests ran, each kept as saved (`userSaves.kept`), in the order first seen. */
  userSaves: z.array(z.string()),
  eventCount: z.number(),
});
export type RunState = z.infer<typeof RunStateSchema>;
