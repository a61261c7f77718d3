import type { RunContext } from '../stages/common/context';
import { runAttempts, type LoopResult } from './innerLoop';
import { judgeHeldOut, runJudgingTests } from '../stages/checks/heldOutRun';
import { describeFailure } from '../stages/common/evidence';
import { runGates } from '../stages/gates/index';

/**
 * Resumes a run from the tests step: after the operator accepted a gate's corrected test plan
 * (the tests are rendered again), or after an interruption that came once an attempt had
 * passed. The code as it is runs against the tests as a new attempt with no Coder answer (a
 * recheck), so the attempts before it keep their own results, the held-out cases judging it as
 * they judge an attempt. When they pass, the gates run
 * again from the first; when they fail, the Coder gets the failure, and the inner loop and then
 * the gates go on as usual.
 */
export async function resumeFromTests(ctx: RunContext, lastAttempt: number, why: string): Promise<LoopResult> {
  const recheck = lastAttempt + 1;
  const { result, heldOut } = await runJudgingTests(ctx, recheck);
  await ctx.log.emit({ type: 'tests.ran', attempt: recheck, result, recheck: why });
  const tooNarrow = result.status === 'passed' ? await judgeHeldOut(ctx, recheck, heldOut) : undefined;
  if (result.status === 'passed' && !tooNarrow) {
    await runGates(ctx, recheck);
    return { attempts: recheck };
  }
  const failure = describeFailure({ parse: [], diagnostics: [], lint: [], tests: result, ...(tooNarrow ? { tooNarrow } : {}) });
  const done = await runAttempts(ctx, recheck + 1, undefined, `${why}; the code fails them:\n${failure}`);
  await runGates(ctx, done.attempts);
  return done;
}
