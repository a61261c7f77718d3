import { z } from 'zod';
import { AppliedFix, CodeDiagnostic, LintProblem, ParseProblem, TestRunResult } from './checks';
import { CorrectionRequest, MachineFact } from './correction';
import { Diagnosis, FailureKind } from './diagnosis';
import { GateEvidence, GateName, RegressionResult, RepairStage } from './gates';
import { Manifest } from './manifest';
import { TicketOp } from './ticket';

/**
 * The run log: one append-only JSON line per event, a zod discriminated union on `type`.
 * Every view (tree, webview, CLI report, replay) is a pure reduction of these events.
 * Each event below says who emits it and when.
 */

const base = {
  runId: z.string().min(1),
  seq: z.number().int().nonnegative(),
  ts: z.string().describe('ISO-8601 time of the write'),
};

/** A file of an attempt: its content lives in the run's blob store under `hash`. */
export const FileRef = z.object({ path: z.string(), hash: z.string() }).strict();
export type FileRef = z.infer<typeof FileRef>;

export const ModelInfo = z
  .object({
    provider: z.enum(['scripted', 'anthropic', 'vscode-lm']),
    model: z.string(),
    /** true for the scripted test/demo provider: every view labels it so. */
    scripted: z.boolean(),
  })
  .strict();
export type ModelInfo = z.infer<typeof ModelInfo>;

/** The roles that call a model; the drafter's calls are logged in a draft's own log, outside any run. */
export const ModelRole = z.enum(['coder', 'debugger', 'reviewer', 'testReviewer', 'drafter']);
export type ModelRole = z.infer<typeof ModelRole>;

/**
 * How a provider changed a call to fit what its API can do, the receipt the run keeps on
 * `model.called`: the recorded prompt is the core's request, so an instruction a provider added,
 * an option it mapped or an answer it took out of prose is said here.
 */
export const ModelAdaptation = z.discriminatedUnion('kind', [
  /** Extended thinking was asked for and sent as the model's closest option. */
  z.object({ kind: z.literal('thinkingMapped'), modelOptions: z.record(z.string(), z.unknown()), detail: z.string() }).strict(),
  /** Extended thinking was asked for and the model offers no option for it: the call ran without. */
  z.object({ kind: z.literal('thinkingUnavailable'), detail: z.string() }).strict(),
  /** The API cannot force the answer's form (no prefill, no forced tool): this instruction was added to the prompt. */
  z.object({ kind: z.literal('proseSuppressed'), instruction: z.string() }).strict(),
  /** The structured answer came as text: the one JSON object in it was taken, `skippedChars` of prose around it left. */
  z
    .object({ kind: z.literal('answerExtracted'), from: z.enum(['fencedJson', 'bareJson']), skippedChars: z.number().int().nonnegative() })
    .strict(),
  /** The structured answer came as text that holds no single JSON object: nothing was taken, and the stage refuses the answer. */
  z.object({ kind: z.literal('answerNotExtracted'), detail: z.string() }).strict(),
]);
export type ModelAdaptation = z.infer<typeof ModelAdaptation>;

export const Budget = z
  .object({
    attempts: z.number().int().positive(),
    modelCalls: z.number().int().positive().optional(),
    tokens: z.number().int().positive().optional(),
    dollars: z.number().positive().optional(),
    wallMs: z.number().int().positive().optional(),
  })
  .strict();
export type Budget = z.infer<typeof Budget>;

/**
 * The recovery rungs' settings for a run (docs/how-it-works.md, "The recovery rungs"; src/core/recovery/policy.ts), recorded in `run.started` so a
 * resumed run climbs the same ladder. Defaults live in src/core/recovery/policy.ts.
 */
export const RecoveryPolicy = z
  .object({
    /** Rung 2: retries with the previous attempt and its failure after a verifier fails. */
    retries: z.number().int().nonnegative(),
    /** Rung 3: one more attempt with extended thinking once rung 2 is spent with thinking off. */
    thinkingRung: z.boolean(),
    /** The thinking mode of ordinary attempts; rung 3 applies only when it is off. */
    thinking: z.boolean(),
    /** Rung 4: `run_tests` calls allowed per attempt; 0 does not offer the tool. */
    maxToolCalls: z.number().int().nonnegative(),
    /** Rung 1: prose past this many characters with no code stops the Coder's stream. */
    proseCharLimit: z.number().int().positive(),
    /** Rung 1: no text by this time stops the Coder's stream. */
    startDeadlineMs: z.number().int().positive(),
    /** The same with thinking on: thinking streams no text while it runs. */
    thinkingStartDeadlineMs: z.number().int().positive(),
  })
  .strict();
export type RecoveryPolicy = z.infer<typeof RecoveryPolicy>;

export const Route = z.enum(['code', 'manifest', 'test', 'ticket', 'escalate']);
export type Route = z.infer<typeof Route>;

export const RUN_OUTCOMES = ['passed', 'failed', 'needsOperator', 'cancelled', 'error'] as const;
export const RunOutcome = z.enum(RUN_OUTCOMES);
export type RunOutcome = z.infer<typeof RunOutcome>;

/** Why a run stopped, typed so views never parse it out of a string. */
/** A file of the installed judging tools, as a run recorded it before its first test command. */
export const JudgingToolFile = z
  .object({
    path: z.string().describe('From the workspace root, through its node_modules'),
    change: z.enum(['created', 'modified', 'deleted']),
    sha256: z.string().nullable().describe('As recorded; null: the file did not exist'),
  })
  .strict();
export type JudgingToolFile = z.infer<typeof JudgingToolFile>;

export const StopReason = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('testsPassed') }).strict(),
  z.object({ kind: z.literal('retryBudgetSpent'), attempts: z.number().int() }).strict(),
  /** `batchDollars`: the dollar cap of the batch the run is part of (`batch --max-dollars`), spent by all its tickets. */
  z
    .object({
      kind: z.literal('budgetExceeded'),
      budget: z.enum(['attempts', 'modelCalls', 'tokens', 'dollars', 'wallMs', 'batchDollars']),
      limit: z.number(),
      used: z.number(),
    })
    .strict(),
  z.object({ kind: z.literal('correctionRequested'), requestId: z.string(), route: Route }).strict(),
  z.object({ kind: z.literal('correctionRejected'), requestId: z.string(), reason: z.string() }).strict(),
  z.object({ kind: z.literal('gateFailed'), gate: z.string() }).strict(),
  /** A gate that could not judge (its tool crashed, timed out, or answered nothing usable): never a pass. */
  z.object({ kind: z.literal('gateError'), gate: z.string(), message: z.string() }).strict(),
  /** A rendered test or the ticket changed under a verdict: the run cannot pass on it. */
  z.object({ kind: z.literal('oracleTampered'), files: z.array(z.string()) }).strict(),
  /**
   * The installed tools that judge the tests were changed by a command and could not be put
   * back: every later verdict would be the changed runner's. `files` holds each one with the
   * sha256 the run recorded before its first test command (null: it did not exist), which
   * `resume` checks before it goes on.
   */
  z.object({ kind: z.literal('judgingToolsChanged'), files: z.array(JudgingToolFile) }).strict(),
  /**
   * Without the OS sandbox, files of the workspace (from its root) changed while a test command
   * ran, and nothing tells whether the command or the user wrote them: each is kept as it is,
   * with a copy under the run store, and the run cannot pass on them.
   */
  z.object({ kind: z.literal('unattributedWrites'), files: z.array(z.string()) }).strict(),
  /**
   * A file in scope that the user changed while the run worked on it, where the run's change
   * would not merge with the user's: the user's file is kept as it is and the run stops.
   */
  z.object({ kind: z.literal('userEdited'), files: z.array(z.string()) }).strict(),
  z.object({ kind: z.literal('cancelled') }).strict(),
  z.object({ kind: z.literal('modelError'), role: ModelRole, message: z.string() }).strict(),
  z.object({ kind: z.literal('error'), message: z.string() }).strict(),
]);
export type StopReason = z.infer<typeof StopReason>;

/** The process that drives a run, so a view can tell a live run from one whose process died. */
export const RunOwner = z.object({ pid: z.number().int().positive(), host: z.string() }).strict();
export type RunOwner = z.infer<typeof RunOwner>;

/**
 * The plan a ticket's run belongs to, and which round of it: a plan's progress is read from its
 * tickets' runs alone (src/core/plan/planProgress.ts), so this link is all the log keeps of it.
 */
export const PlanLink = z
  .object({
    id: z.string().describe("The plan's id"),
    file: z.string().describe("The plan's file, from the workspace root"),
    round: z.string().describe('Which run of the plan, from `plan run` to the end of its resumes: the id of its start'),
  })
  .strict();
export type PlanLink = z.infer<typeof PlanLink>;

/** The earlier run whose measurement of the project a run reused, and when it measured it (src/core/stages/checks/keptBaselines.ts). */
export const ReusedFrom = z.object({ runId: z.string(), at: z.string() }).strict();

/** Who in a run writes over a file the user may be editing. */
export const UserEditWriter = z.enum(['coder', 'repair', 'op', 'autofix']);
export type UserEditWriter = z.infer<typeof UserEditWriter>;

/** Where the user's change and the run's overlap: the lines of each version there. */
export const UserEditConflict = z.object({ base: z.string(), yours: z.string(), run: z.string() }).strict();
export type UserEditConflict = z.infer<typeof UserEditConflict>;

const UserEditVersions = {
  path: z.string(),
  by: UserEditWriter,
  attempt: z.number().int().nonnegative(),
  base: z.string().nullable(),
  yours: z.string().nullable(),
  run: z.string().nullable(),
};

const ev = <T extends string, S extends z.ZodRawShape>(type: T, shape: S) =>
  z.object({ ...base, type: z.literal(type), ...shape }).strict();

export const RunEvent = z.discriminatedUnion('type', [
  /** Pipeline, at the start of a run: what is run, where, with which model and budget. */
  ev('run.started', {
    ticketId: z.string(),
    ticketPath: z.string(),
    model: ModelInfo,
    budget: Budget,
    workspace: z.string().describe('The workspace folder name, for reports'),
    recovery: RecoveryPolicy.optional(),
    owner: RunOwner.optional(),
    /** Whether tests, tools and gates run in the OS sandbox; absent in logs from before it existed. */
    sandbox: z.object({ on: z.boolean(), detail: z.string() }).strict().optional(),
    /** Set when the run is one ticket of a plan's run. */
    plan: PlanLink.optional(),
  }),
  /**
   * Pipeline, when a run continues from its log: after a correction is settled, or after it was
   * interrupted or cancelled (`ticket-runner resume`). `attempt`: the attempt it starts again,
   * which views show afresh (the interrupted one's events stay in the log).
   */
  ev('run.resumed', {
    from: z.enum(['manifest', 'tests', 'coder']),
    reason: z.string(),
    attempt: z.number().int().positive().optional(),
    owner: RunOwner.optional(),
  }),
  /**
   * Pipeline, at the start of a run whose scope (or rendered tests) holds changes git has not
   * committed: a warning, the run goes on (rollback restores them, as they were before the run).
   */
  ev('uncommitted.detected', { files: z.array(z.string()) }),
  /** Pipeline, after deriving the manifest from the ticket. */
  ev('manifest.built', { manifest: Manifest, hash: z.string() }),
  /** Materializer, after rendering the test plan into files. */
  ev('tests.materialized', { framework: z.string(), files: z.array(FileRef) }),
  /**
   * Pipeline, once per run after the tests are rendered, when the test plan names test files the
   * author wrote: each file's bytes (in the blob store, pinned from here on) and the cases the
   * runner reported in it, run on the project as it was, or, for a file that could not load yet,
   * the cases its text declares. Every judging run must report each of these cases passed
   * (src/core/stages/checks/authoredCases.ts).
   */
  ev('authored.listed', {
    files: z.array(
      FileRef.extend({
        heldOut: z.boolean(),
        /** How its cases were found: reported by the runner, or read from the text of a file that did not load. Absent in older logs: ran. */
        found: z.enum(['ran', 'read']).optional(),
      }),
    ),
    cases: z.array(z.object({ file: z.string(), name: z.string() }).strict()),
    /**
     * The cases the author left skipped (`.skip`, `.todo`, `xit`, or reported skipped before the
     * Coder wrote): no work the ticket asks for, so none must pass. Absent in older logs.
     */
    skipped: z.array(z.object({ file: z.string(), name: z.string() }).strict()).optional(),
  }),
  /** Ops stage, for each typed op that applied. */
  ev('op.applied', { index: z.number().int(), op: TicketOp, files: z.array(FileRef) }),
  /** Ops stage, for a typed op that could not apply. */
  ev('op.failed', { index: z.number().int(), op: TicketOp, reason: z.string(), suggestion: z.string() }),
  /**
   * Ops stage, once the ops of a run have applied: the diagnostics of the files they changed and
   * of their importers. `introduced` are the errors the ops brought in (existing code that lacks
   * a field an op added, say): the Coder's to fix in scope, a correction request outside it.
   */
  ev('ops.checked', {
    checkedFiles: z.array(z.string()),
    diagnostics: z.array(CodeDiagnostic),
    introduced: z.array(CodeDiagnostic),
    durationMs: z.number(),
  }),
  /** Coder stage, when the model answered for an attempt. */
  ev('coder.attempted', {
    attempt: z.number().int().positive(),
    brief: z.string().optional().describe('The corrective brief this attempt answered'),
    files: z.array(FileRef),
    model: ModelInfo,
  }),
  /**
   * Every write of a run, by whoever wrote it (attempt 0: before the first Coder attempt).
   * `before` is the hash of the previous content, null when the file was created; rollback
   * restores the earliest `before` of each path.
   */
  ev('files.written', {
    attempt: z.number().int().nonnegative(),
    by: z.enum(['coder', 'materializer', 'op', 'autofix', 'repair', 'operator', 'oracle', 'resume']),
    files: z.array(z.object({ path: z.string(), before: z.string().nullable(), after: z.string() }).strict()),
  }),
  /**
   * Pipeline, when a write of the run (the Coder's, a repair's, a typed op's, a structural fix's)
   * finds that the file is no longer what the run last read or wrote (the user changed it) and the
   * two changes merge cleanly, line by line: the merge is written. Blobs: `base` what the run last
   * read or wrote, `yours` the file as the user left it, `run` what the run was writing (null: no
   * file), `merged` what was written.
   */
  ev('userEdit.merged', { ...UserEditVersions, merged: z.string() }),
  /**
   * Pipeline, when such a write does not merge with the user's change: the write is not made, the
   * user's file stays as it is, and the run stops (`userEdited`). `conflicts`: the lines where the
   * three versions differ, as text.
   */
  ev('userEdit.kept', { ...UserEditVersions, conflicts: z.array(UserEditConflict) }),
  /**
   * Pipeline, for files of the workspace the user saved while the run's test commands ran (told
   * apart from the tests' writes: with the OS sandbox no command can write the workspace, and
   * without it the editor knows its saves). Each is kept as saved: nothing of the run puts it
   * back. Written where the run asks its test runner what it saw: after the baselines, after each
   * attempt's checks, and before the verdict.
   */
  ev('userSaves.kept', {
    files: z.array(z.object({ path: z.string(), change: z.enum(['created', 'modified', 'deleted']) }).strict()).min(1),
  }),
  /** Write gate, for each path an attempt tried to write and may not. */
  ev('write.refused', {
    attempt: z.number().int().positive(),
    path: z.string(),
    /** `elided`: a whole new content that would delete code the ticket did not ask to touch (src/core/stages/coder/elision.ts). */
    reason: z.enum(['outOfScope', 'testFile', 'escapesWorkspace', 'invalidPath', 'elided']),
    detail: z.string(),
  }),
  /**
   * Coder stage, for each call of the file editor that was refused (an old_str not found or
   * found more than once, a path out of scope, elided code): the model was told why, as a tool
   * error, and went on. It costs no attempt.
   */
  ev('edit.refused', {
    attempt: z.number().int().positive(),
    command: z.string(),
    path: z.string(),
    detail: z.string(),
  }),
  /**
   * Checks stage, once an attempt's visible cases passed: the held-out cases' run (generalize).
   * `criteria`: those of the held-out cases that did not pass. The Coder never reads this event.
   */
  ev('heldOut.ran', {
    attempt: z.number().int().positive(),
    result: TestRunResult,
    criteria: z.array(z.string()),
  }),
  /**
   * Coder stage, before a Coder turn, when what it was to be sent held a held-out case's text: a
   * Debugger's brief that quoted one (refused whole), or text in the prompt or a tool result
   * (taken out where it was). `count`: how many distinct texts.
   */
  ev('heldOut.withheld', {
    attempt: z.number().int().positive(),
    from: z.enum(['brief', 'prompt', 'tool']),
    count: z.number().int().positive(),
  }),
  /**
   * Coder stage, when an answer ended at the model's token limit: what it wrote past its last
   * whole edit was thrown away, never written, and the model was asked to go on with edits.
   * `final`: the Coder's turn ended cut, so none of that answer's whole files were used.
   */
  ev('answer.cut', {
    attempt: z.number().int().positive(),
    role: ModelRole,
    outputTokens: z.number().int().nonnegative(),
    final: z.boolean(),
    detail: z.string(),
  }),
  /**
   * Oracle guard, before and after every test run and before every verdict, when a rendered
   * test or the ticket no longer has the bytes the run wrote or read. The trusted content is
   * written back (a `files.written` by `oracle` follows) and what was being judged fails.
   */
  ev('oracle.tampered', {
    attempt: z.number().int().nonnegative(),
    at: z.enum(['beforeTests', 'afterTests', 'beforeVerdict']),
    files: z.array(z.object({ path: z.string(), expected: z.string(), actual: z.string().nullable() }).strict()),
  }),
  /**
   * Pipeline, once per run before its first write: the findings that were already there. Checks
   * and gates count only what goes beyond them. `project`: the whole project's type errors, when
   * the type-check gate will run (absent when it will not, or its checker could not run).
   */
  ev('baseline.recorded', {
    checkedFiles: z.array(z.string()),
    diagnostics: z.array(CodeDiagnostic),
    lint: z.array(LintProblem),
    project: z.array(CodeDiagnostic).optional(),
    /** `project` was not measured again: an earlier run's, on a workspace where nothing it reads changed since. */
    projectReusedFrom: ReusedFrom.optional(),
    durationMs: z.number(),
  }),
  /**
   * Pipeline, before the run's first write: the project's own tests that the run could affect,
   * run once; `failing` are the cases that did not pass then (file › name), never counted later.
   */
  ev('projectTests.baseline', {
    files: z.array(z.string()),
    status: TestRunResult.shape.status,
    failing: z.array(z.string()),
    /** The cases that passed then: one that is not reported passing later counts, as a failure would (absent from older logs). */
    passing: z.array(z.string()).optional(),
    /** Not run again: an earlier run's results, on a workspace where nothing the tests read changed since. */
    reusedFrom: ReusedFrom.optional(),
    durationMs: z.number(),
  }),
  /**
   * Test check, once the ticket's tests pass: the project's existing tests that import a changed
   * file. `newlyFailing` passed before the run and fail now: they fail the attempt.
   */
  ev('projectTests.ran', {
    attempt: z.number().int(),
    files: z.array(z.string()),
    result: TestRunResult,
    newlyFailing: z.array(z.string()),
    preExisting: z.array(z.string()),
  }),
  /** Parse check, after every write. */
  ev('check.parsed', { attempt: z.number().int(), ok: z.boolean(), problems: z.array(ParseProblem), durationMs: z.number() }),
  /**
   * Diagnostics check, after every write: errors in the changed files and their importers.
   * `diagnostics` counts; `preExisting` were in the baseline, are shown apart and never count.
   */
  ev('check.diagnosed', {
    attempt: z.number().int(),
    ok: z.boolean(),
    checkedFiles: z.array(z.string()),
    diagnostics: z.array(CodeDiagnostic),
    preExisting: z.array(CodeDiagnostic).default([]),
    durationMs: z.number(),
    /** Which service judged the files: the editor's TypeScript server, the headless language service, or both. */
    checkedBy: z.string().optional(),
  }),
  /** Structural auto-fix, for each fix applied (or refused: out of scope) with no model call. */
  ev('check.autofixed', { attempt: z.number().int(), applied: z.array(AppliedFix), refused: z.array(AppliedFix) }),
  /** Lint check, after every write. */
  ev('check.linted', {
    attempt: z.number().int(),
    status: z.enum(['passed', 'failed', 'skipped', 'error']),
    problems: z.array(LintProblem),
    /** Findings the baseline had: shown apart, never counted. */
    preExisting: z.array(LintProblem).default([]),
    detail: z.string().optional(),
  }),
  /**
   * Checks stage, before an attempt's first test run when the test plan has a property: the seed
   * fast-check draws that attempt's inputs from (src/core/stages/checks/propertySeed.ts). Every
   * run of the attempt's tests uses it, a resumed one's too; the next attempt gets a new one.
   */
  ev('properties.seeded', { attempt: z.number().int().nonnegative(), seed: z.number().int() }),
  /** Test check, after every write: the runner's machine-readable output, parsed. */
  ev('tests.ran', {
    attempt: z.number().int(),
    result: TestRunResult,
    /** Set when the tests ran again over code no Coder attempt wrote (after an accepted test plan, or a resume): why. */
    recheck: z.string().optional(),
  }),
  /** Debugger, on every failed attempt. `diagnosis` null: none usable (the code path). */
  ev('debugger.diagnosed', {
    attempt: z.number().int(),
    diagnosis: Diagnosis.nullable(),
    /** Quotes not found verbatim in the inputs, per rejected answer. */
    rejected: z.array(z.object({ reason: z.string(), missingQuotes: z.array(z.string()) }).strict()),
  }),
  /** Router, after every diagnosis: the route taken and the guard's verdict. */
  ev('router.routed', {
    attempt: z.number().int(),
    claimed: FailureKind.nullable(),
    route: Route,
    guard: z
      .object({
        verdict: z.enum(['confirmed', 'abstained', 'overridden', 'notNeeded']),
        fact: MachineFact.optional(),
        detail: z.string(),
      })
      .strict(),
  }),
  /** Router or ops stage, when an input needs the operator. */
  ev('correction.requested', {
    request: CorrectionRequest,
    /** What Accept would write into the ticket, in full (a unified diff), or why it could not apply. */
    preview: z
      .union([z.object({ path: z.string(), diff: z.string() }).strict(), z.object({ path: z.string(), problem: z.string() }).strict()])
      .optional(),
  }),
  /** Operator (webview or `ticket-runner resolve`), accepting a request. */
  ev('correction.accepted', { requestId: z.string(), by: z.string() }),
  /** Operator, rejecting a request with a reason. */
  ev('correction.rejected', { requestId: z.string(), reason: z.string(), by: z.string() }),
  /** Gate stage, after each end-of-ticket gate. */
  ev('gate.ran', {
    gate: z.string(),
    status: z.enum(['passed', 'failed', 'skipped', 'error']),
    detail: z.string(),
    repaired: z.boolean().default(false),
    /** This run of the gate follows the repair of that gate (itself: the verdict after its repair). */
    afterRepairOf: GateName.optional(),
    durationMs: z.number().optional(),
    /** The typed facts behind the verdict (src/core/schema/gates.ts). */
    evidence: GateEvidence.optional(),
    /** The operator marked the gate optional: its error is "not judged" and does not fail the run. */
    optional: z.boolean().optional(),
  }),
  /** Repair stage, after the one fail-safe repair pass of a gate. */
  ev('repair.attempted', {
    gate: z.string(),
    ok: z.boolean(),
    detail: z.string(),
    files: z.array(FileRef),
    /** Where the pass ended: `done`, or the step that failed or threw. */
    stage: RepairStage.optional(),
    /** An error thrown inside the repair path, caught by its fail-safe. */
    error: z.object({ name: z.string(), message: z.string() }).strict().optional(),
    /** The gate's complaints the pass was built from: its constraints. */
    complaints: z.array(z.string()).optional(),
    regression: RegressionResult.optional(),
    /** The repair's writes were put back: the code is as the failing gate found it. */
    reverted: z.boolean().optional(),
  }),
  /** Recovery, whenever a rung fires: the receipt. */
  ev('rung.fired', {
    attempt: z.number().int(),
    rung: z.number().int().min(1).max(4),
    reason: z.string(),
    /** What set it off: a stream verdict, an anomaly, a failed verifier, a tool call. */
    trigger: z.enum(['noStart', 'proseWithoutCode', 'repetitionLoop', 'anomaly', 'verifierFailed', 'toolCall']).optional(),
    /** The thinking mode of the call or attempt the rung started. */
    thinking: z.boolean().optional(),
  }),
  /** Recovery, when a model answer scores an anomaly. */
  ev('anomaly.detected', {
    attempt: z.number().int(),
    role: ModelRole,
    score: z.number(),
    urgent: z.boolean(),
    signals: z.array(z.object({ name: z.string(), weight: z.number(), detail: z.string() }).strict()),
  }),
  /** Model port, after every model call: tokens, cost and latency. */
  ev('model.called', {
    role: ModelRole,
    attempt: z.number().int(),
    model: ModelInfo,
    ok: z.boolean(),
    error: z.string().optional(),
    inputTokens: z.number().int(),
    outputTokens: z.number().int(),
    cacheReadTokens: z.number().int().default(0),
    cacheWriteTokens: z.number().int().default(0),
    costUsd: z.number(),
    latencyMs: z.number(),
    retries: z.number().int().default(0),
    /** Blob of the whole request (system, messages, tools, output schema), as the model got it, secrets scrubbed. */
    prompt: z.string().optional(),
    /** Blob of the model's raw answer (text, structured output, tool calls), before any parsing. */
    answer: z.string().optional(),
    /** What the provider changed to fit its API (vscode.lm: thinking mapped, an instruction added, an answer taken from prose). */
    adaptations: z.array(ModelAdaptation).optional(),
    /** How the answer ended: `toolUse` (the model called a tool and waits for its result), `maxTokens` (cut at the token limit). */
    stopReason: z.enum(['end', 'maxTokens', 'toolUse', 'aborted']).optional(),
  }),
  /**
   * The run's workspace, before the run first writes or deletes a path: the path's permission
   * bits (null: it did not exist) and the folders the write is about to create. Rollback puts
   * both back; the content before is in `files.written`.
   */
  ev('file.baselined', { path: z.string(), mode: z.number().int().nonnegative().nullable(), createdFolders: z.array(z.string()) }),
  /** Rollback, after restoring the workspace from the run's store. */
  ev('run.rolledBack', {
    files: z.array(z.object({ path: z.string(), restored: z.enum(['content', 'deleted']) }).strict()),
    /** The folders the run had created, removed. */
    folders: z.array(z.string()).optional(),
    /** Files changed since the run last wrote them, overwritten because the operator forced it. */
    forced: z.array(z.string()).optional(),
  }),
  /** Pipeline, last event of a run (until a correction resumes it). */
  ev('run.finished', { outcome: RunOutcome, reason: StopReason, attempts: z.number().int() }),
]);
export type RunEvent = z.infer<typeof RunEvent>;
export type RunEventType = RunEvent['type'];
export type EventOf<T extends RunEventType> = Extract<RunEvent, { type: T }>;
/** An event as the pipeline hands it to the log: the log assigns runId, seq and ts. */
export type NewEvent = RunEvent extends infer E ? (E extends RunEvent ? Omit<E, 'runId' | 'seq' | 'ts'> : never) : never;
