import { z } from 'zod';
import { errorMessage } from '../../errors';
import { runChecks } from '../checks/checksStage';
import type { RunContext } from '../common/context';
import { describeFailure, type FailureEvidence } from '../common/evidence';
import { checkWrite } from './writeGate';
import type { CandidateFile } from '../../ports/candidates';
import type { ModelMessage, ToolCall, ToolSpec } from '../../ports/model';
import { memoryStore } from '../../run/memoryStore';
import { RunLog } from '../../run/runLog';
import type { RunEvent } from '../../schema/events';
import { stopFromSignal } from '../../recovery/budgets';

export const RUN_TESTS_TOOL = 'run_tests';

/** The tool's input, validated with zod: a model's malformed call is answered, never thrown. */
export const RunTestsInput = z
  .object({
    files: z
      .array(
        z
          .object({
            path: z.string().min(1).describe('Workspace-relative path of a file in scope.write'),
            content: z.string().describe('The whole candidate content of the file'),
          })
          .strict(),
      )
      .min(1)
      .describe('The candidate files to check, whole'),
  })
  .strict();
export type RunTestsInput = z.infer<typeof RunTestsInput>;

export function runTestsToolSpec(): ToolSpec {
  const { $schema: _dialect, ...inputSchema } = z.toJSONSchema(RunTestsInput, { io: 'input' }) as Record<string, unknown>;
  return {
    name: RUN_TESTS_TOOL,
    description:
      'Runs the real checks (syntax, type errors, lint) and the ticket tests on candidate versions of files in scope, in a scratch copy of the ' +
      'workspace; nothing is written. Returns the results. Call it when you are unsure; then make the change with your edits as usual.',
    inputSchema,
  };
}

/** One line for a check outcome ("tests failed: 1 passed, 1 failed"): what a receipt or a retry reason says about it. */
export function summarizeChecks(e: FailureEvidence): string {
  const parts: string[] = [];
  if (e.parse.length) parts.push(`${e.parse.length} syntax problem(s)`);
  if (e.diagnostics.length) parts.push(`${e.diagnostics.length} type error(s)`);
  if (e.lint.length) parts.push(`${e.lint.length} lint error(s)`);
  if (e.tests) parts.push(`tests ${e.tests.status}: ${e.tests.passed} passed, ${e.tests.failed} failed`);
  else if (e.parse.length) parts.push('tests not run');
  if (e.tooNarrow) parts.push('too narrow: held-out cases fail');
  return parts.join(', ') || 'no check ran';
}

/**
 * Rung 4: the Coder's `run_tests` tool for one attempt. Each call overlays the candidate
 * files on a scratch copy of the workspace, runs the post-write checks there, and answers
 * with their results; each is a receipt (`rung.fired`, rung 4). Calls past the per-attempt
 * limit, bad input and files the write gate refuses are answered as tool errors, so a
 * confused model gets told, and the run goes on.
 */
export class RunTestsTool {
  private used = 0;

  constructor(
    private readonly ctx: RunContext,
    private readonly attempt: number,
    readonly limit: number,
  ) {}

  readonly spec = runTestsToolSpec();

  async answer(call: ToolCall): Promise<Extract<ModelMessage, { role: 'tool' }>> {
    const reply = (content: string, isError = false) => ({
      role: 'tool' as const,
      toolCallId: call.id,
      content,
      ...(isError ? { isError } : {}),
    });
    if (call.name !== RUN_TESTS_TOOL) return reply(`unknown tool "${call.name}": the only tool is ${RUN_TESTS_TOOL}`, true);
    if (this.used >= this.limit) {
      return reply(
        `the limit of ${this.limit} ${RUN_TESTS_TOOL} call(s) per attempt is reached: make your change now with your edits`,
        true,
      );
    }
    this.used++;
    const parsed = RunTestsInput.safeParse(call.input);
    if (!parsed.success) {
      return reply(
        `invalid ${RUN_TESTS_TOOL} input: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(input)'}: ${i.message}`).join('; ')}`,
        true,
      );
    }
    const allowed: CandidateFile[] = [];
    const refused: string[] = [];
    for (const f of parsed.data.files) {
      const verdict = checkWrite(this.ctx.manifest, f.path);
      if (verdict.ok) allowed.push({ path: verdict.path, content: f.content });
      else refused.push(`${f.path}: ${verdict.detail}`);
    }
    const refusedText = refused.length ? `\nRefused (not checked):\n${refused.join('\n')}` : '';
    if (!allowed.length) return reply(`no candidate file may be written: nothing was checked.${refusedText}`, true);

    const label = `${RUN_TESTS_TOOL} call ${this.used} of ${this.limit} on ${allowed.map((f) => f.path).join(', ')}`;
    try {
      const { passed, evidence, fixes } = await this.check(allowed);
      const summary = `${passed ? 'passed' : 'failed'}: ${summarizeChecks(evidence)}`;
      await this.ctx.log.emit({ type: 'rung.fired', attempt: this.attempt, rung: 4, trigger: 'toolCall', reason: `${label}: ${summary}` });
      const details = describeFailure(evidence);
      return reply(
        [
          `Checks on the candidate (a scratch copy; the workspace is unchanged): ${summary}.`,
          fixes.length ? `Structural fixes the pipeline applies by itself, with no need to write them: ${fixes.join('; ')}` : '',
          details,
          refusedText.trim(),
        ]
          .filter(Boolean)
          .join('\n'),
      );
    } catch (err) {
      if (this.ctx.signal.aborted) throw stopFromSignal(this.ctx.signal);
      // The tool's own trouble (a copy that fails) is the model's answer, not the run's end.
      await this.ctx.log.emit({
        type: 'rung.fired',
        attempt: this.attempt,
        rung: 4,
        trigger: 'toolCall',
        reason: `${label}: the check could not run: ${errorMessage(err)}`,
      });
      return reply(`the checks could not run on the candidate: ${errorMessage(err)}`, true);
    }
  }

  /** The post-write checks, on an overlay, through the same stage a real attempt uses. */
  private async check(files: CandidateFile[]): Promise<{ passed: boolean; evidence: FailureEvidence; fixes: string[] }> {
    const { ctx } = this;
    const port = ctx.deps.candidates;
    if (!port) throw new Error('no candidate checks are wired');
    const overlay = await port.open(files, ctx.signal);
    try {
      // The authored tests' case list goes along: the scratch checks expect the same cases the run's do.
      const listed = ctx.log.events.filter((e) => e.type === 'authored.listed');
      const scratch = new RunLog(`${ctx.log.runId}-candidate`, memoryStore(ctx.deps.hash), ctx.deps.clock, listed);
      const deps = {
        ...ctx.deps,
        workspace: overlay.workspace,
        workspaceRoot: overlay.root,
        tests: overlay.tests,
        parser: overlay.parser,
        diagnostics: overlay.diagnostics,
        lint: overlay.lint,
        onEvent: undefined,
      };
      // The held-out cases never run here: a pass or a fail the Coder can ask for again and again is a way to fit them.
      const manifest = { ...ctx.manifest, heldOut: { generalize: ctx.manifest.heldOut.generalize, files: [] } };
      const outcome = await runChecks(
        { ...ctx, manifest, deps, log: scratch },
        this.attempt,
        files.map((f) => f.path),
      );
      const fixes = scratch.events
        .filter((e): e is Extract<RunEvent, { type: 'check.autofixed' }> => e.type === 'check.autofixed')
        .flatMap((e) => e.applied.map((f) => `${f.description} (${f.code}) in ${f.file}`));
      return { ...outcome, fixes };
    } finally {
      await overlay.dispose();
    }
  }
}
