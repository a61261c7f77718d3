import type { RunContext } from '../stages/context';
import { runAttempts, type LoopResult } from './innerLoop';
import { runOracleTests } from '../stages/checks/oracle';
import { describeFailure } from '../stages/prompts';
import { runGates } from '../stages/gates/index';

/**
 * Resumes a run from the tests step, after the operator accepted a gate's corrected test plan
 * (the tests are already rendered again): the code as it is runs against the new tests. When
 * they pass, the gates run again from the first; when they fail, the Coder gets the failure,
 * and the inner loop and then the gates go on as usual.
 */
export async function resumeFromTests(ctx: RunContext, lastAttempt: number): Promise<LoopResult> {
  const { result } = await runOracleTests(ctx, lastAttempt);
  await ctx.log.emit({ type: 'tests.ran', attempt: lastAttempt, result });
  if (result.status === 'passed') {
    await runGates(ctx, lastAttempt);
    return { attempts: lastAttempt };
  }
  const failure = describeFailure({ parse: [], diagnostics: [], lint: [], tests: result });
  const done = await runAttempts(ctx, lastAttempt + 1, `The operator accepted a corrected test plan, and the code fails it:\n${failure}`);
  await runGates(ctx, done.attempts);
  return done;
}
