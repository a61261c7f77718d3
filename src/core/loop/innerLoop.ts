import { reduceRun, type AttemptState } from '../run/reducer';
import type { CorrectionRequest } from '../schema/correction';
import { runChecks } from '../stages/checks/checksStage';
import { typecheckAhead } from '../stages/checks/typecheckAhead';
import { stopIfToolsChanged } from '../stages/checks/judgingTools';
import { type RunContext } from '../stages/common/context';
import { RunStop } from '../recovery/runStop';
import { debuggerRequest, diagnose } from '../stages/debugger/debuggerStage';
import { emitCorrection, nextCorrectionId } from '../stages/proposals/correctionRequests';
import { buildCorrection } from '../stages/router/corrections';
import { callModel, checkBudget } from '../stages/common/modelCall';
import { stopFromSignal } from '../recovery/budgets';
import { askCoder } from '../stages/coder/coderCall';
import { recoveryOf } from '../stages/coder/watchedCall';
import { type AttemptPlan, RecoveryLadder } from '../recovery/ladder';
import { summarizeChecks } from '../stages/coder/runTestsTool';
import { describeFailure } from '../stages/common/evidence';
import { CODER_SYSTEM, coderPromptParts, correctiveBrief } from '../stages/coder/prompt';
import type { ChangeShape, RouterFacts } from '../stages/common/routing';
import { route } from '../stages/router/router';
import { changedStatements, textShape } from '../stages/router/repeatGuard';
import { writeThroughGate } from '../stages/coder/writeGate';
import { stopOnKeptEdits } from '../stages/common/userEdits';
import { baselineOf } from '../run/baseline';
import { debuggerInputs } from '../stages/debugger/debuggerInputs';

/**
 * One Coder attempt, the same for a first try and every recovery rung: ask (rungs 1 and 4
 * live around the call), record, and write what the gate allows. Returns the paths written.
 */
async function coderAttempt(ctx: RunContext, plan: AttemptPlan): Promise<string[]> {
  const { log } = ctx;
  const { attempt, brief, lastFailure } = plan;
  const { files: answer } = await askCoder(ctx, {
    attempt,
    system: CODER_SYSTEM,
    ...(await coderPromptParts(ctx, { brief, lastFailure })),
    thinking: plan.thinking,
  });
  const refs = [];
  for (const f of answer) refs.push({ path: f.path, hash: await log.putBlob(f.content) });
  await log.emit({ type: 'coder.attempted', attempt, brief, files: refs, model: ctx.deps.model.info });
  const { written, kept } = await writeThroughGate(ctx, attempt, answer);
  if (written.length)
    await log.emit({
      type: 'files.written',
      attempt,
      by: 'coder',
      files: written.map((w) => ({ path: w.path, before: w.beforeHash, after: w.afterHash })),
    });
  stopOnKeptEdits(kept);
  return written.map((w) => w.path);
}

/** A file's code structure (ParserPort.shape); the tokenizer's coarser one when no parser is wired or it fails. */
async function shapeOf(ctx: RunContext, path: string, content: string): Promise<string[]> {
  const parser = ctx.deps.parser;
  if (parser?.shape) {
    try {
      return await parser.shape(path, content);
    } catch {
      // A grammar that cannot load costs the guard its precision, not the run.
    }
  }
  return textShape(content);
}

/** The changed code structure of an attempt against the run's baseline, for the repeat guard. */
async function attemptShape(ctx: RunContext, a: AttemptState | undefined): Promise<ChangeShape> {
  if (!a) return [];
  const firstBefore = baselineOf(ctx.log.events);
  const out: string[] = [];
  for (const f of [...a.files].sort((x, y) => x.path.localeCompare(y.path))) {
    const base = firstBefore.get(f.path);
    const before = base ? await shapeOf(ctx, f.path, await ctx.log.getBlob(base)) : null;
    out.push(...changedStatements(f.path, before, await shapeOf(ctx, f.path, await ctx.log.getBlob(f.hash))));
  }
  return out;
}

/**
 * The approaches flagged in this segment, oldest first: the `avoid` list of every earlier
 * diagnosis that sent its attempt back to the Coder, then the current one's. A new segment
 * (after an accepted correction) starts clean, since its inputs changed.
 */
function flaggedApproaches(attempts: AttemptState[], firstAttempt: number, attempt: number, current: string[]): string[] {
  const earlier = attempts.filter((a) => a.n >= firstAttempt && a.n < attempt && a.route?.route === 'code');
  return [...earlier.flatMap((a) => a.diagnosis?.avoid ?? []), ...current];
}

export interface LoopResult {
  attempts: number;
}

/**
 * The inner loop: Coder attempt, write gate, checks; on failure the Debugger, then the
 * router sends the fix to its owner. The code route climbs the recovery ladder (rungs 2
 * and 3, src/core/recovery/ladder.ts, which explains how they compose with the budgets
 * and the router); every attempt, first or recovery, runs through the same body. Ends
 * with tests passing, an operator correction request, or the ladder or a budget spent
 * (each a RunStop or a normal return).
 */
export async function runAttempts(
  ctx: RunContext,
  firstAttempt: number,
  initialBrief: string | undefined,
  initialFailure?: string,
): Promise<LoopResult> {
  const { log } = ctx;
  const ladder = new RecoveryLadder(recoveryOf(ctx), ctx.budget, firstAttempt);
  let plan = ladder.first(initialBrief, initialFailure);
  for (;;) {
    const { attempt } = plan;
    if (ctx.signal.aborted) throw stopFromSignal(ctx.signal);
    // A spent budget stops the run before a rung's receipt promises an attempt it cannot make.
    checkBudget(ctx, 'beforeCall');
    if (plan.rung)
      await log.emit({
        type: 'rung.fired',
        attempt,
        rung: plan.rung.rung,
        reason: plan.rung.reason,
        trigger: 'verifierFailed',
        thinking: plan.thinking,
      });
    const changed = await coderAttempt(ctx, plan);
    // The type-check gate asks moments after a passing attempt: its check overlaps the attempt's tests.
    const outcome = await runChecks(ctx, attempt, changed, () => typecheckAhead(ctx));
    await stopIfToolsChanged(ctx);
    if (outcome.passed) return { attempts: attempt };

    const inputs = await debuggerInputs(ctx, attempt, outcome);
    const diagnosed = await diagnose((prompt, note) => callModel(ctx, debuggerRequest(attempt, prompt, note)), inputs);
    await log.emit({ type: 'debugger.diagnosed', attempt, diagnosis: diagnosed.diagnosis, rejected: diagnosed.rejected });

    const state = reduceRun(log.runId, log.events);
    const previous = state.attempts.find((a) => a.n === attempt - 1);
    const flagged = previous?.route?.route === 'code' && previous.diagnosis ? previous : undefined;
    const facts: RouterFacts = {
      manifest: ctx.manifest,
      diagnostics: outcome.evidence.diagnostics,
      tests: outcome.evidence.tests,
      refusedFixes: outcome.evidence.refusedFixes,
      impossibleExpectations: outcome.evidence.impossibleExpectations,
      tampered: outcome.evidence.tampered,
      testErrorsBeforeCoder: outcome.evidence.testErrorsBeforeCoder,
      heldOutFact: outcome.heldOutFact,
      workspaceRoot: ctx.deps.workspaceRoot,
      repeat: flagged
        ? {
            current: await attemptShape(
              ctx,
              state.attempts.find((a) => a.n === attempt),
            ),
            previous: await attemptShape(ctx, flagged),
          }
        : undefined,
    };
    const decision = route({ ...facts, diagnosis: diagnosed.diagnosis });
    ctx.deps.observeRouting?.({ attempt, inputs, facts, diagnosis: diagnosed.diagnosis, decision });
    await log.emit({ type: 'router.routed', attempt, claimed: decision.claimed, route: decision.route, guard: decision.guard });

    if (decision.route !== 'code') {
      const request: CorrectionRequest = await buildCorrection(ctx, decision, diagnosed.diagnosis, outcome, nextCorrectionId(ctx));
      await emitCorrection(ctx, request);
      throw new RunStop({ kind: 'correctionRequested', requestId: request.id, route: decision.route }, 'needsOperator');
    }
    const step = ladder.next({
      attempt,
      summary: summarizeChecks(outcome.evidence),
      failure: describeFailure(outcome.evidence),
      brief: correctiveBrief(
        diagnosed.diagnosis?.brief,
        flaggedApproaches(state.attempts, firstAttempt, attempt, diagnosed.diagnosis?.avoid ?? []),
      ),
    });
    if (step.kind === 'stop') throw new RunStop(step.stop, step.outcome);
    plan = step.plan;
  }
}
