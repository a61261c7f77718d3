import type { Manifest } from '../../schema/manifest';
import type { TestFile } from '../../schema/testPlan';
import type { RunContext } from '../common/context';

/** What choosing a seed reads: the plan, the log, and the hash port. */
type SeedContext = Pick<RunContext, 'manifest' | 'log'> & { deps: Pick<RunContext['deps'], 'hash'> };

/** Whether any case, visible or held out, is a property: only then does an attempt get a seed. */
function hasProperties(manifest: Manifest): boolean {
  const files: TestFile[] = [...manifest.testPlan.files, ...manifest.heldOut.files];
  return files.some((f) => f.cases.some((c) => c.expect.some((e) => e.kind === 'property')));
}

/**
 * The seed an attempt's properties draw their inputs from (fast-check's, a 32-bit integer). Each
 * attempt gets its own, so an answer fitted to one attempt's counterexample meets new inputs at
 * the next; it is the log's: written there (`properties.seeded`) before the attempt's first test
 * run, and read back from it by every later run of that attempt, a resumed run's included, so a
 * replay draws exactly the inputs the run drew. It is derived from the run's id and the attempt
 * through the hash port (the core has no randomness of its own): fresh for every run and attempt,
 * the same when the same run is made again. A run whose plan has no property gets none.
 */
export async function attemptSeed(ctx: SeedContext, attempt: number): Promise<number | undefined> {
  if (!hasProperties(ctx.manifest)) return undefined;
  const recorded = ctx.log.events.find((e) => e.type === 'properties.seeded' && e.attempt === attempt);
  if (recorded?.type === 'properties.seeded') return recorded.seed;
  // The hash's first 32 bits, as the signed integer fast-check keeps a seed as (it prints it so).
  const seed = Number.parseInt(ctx.deps.hash(`${ctx.log.runId}#${attempt}`).slice(0, 8), 16) | 0;
  await ctx.log.emit({ type: 'properties.seeded', attempt, seed });
  return seed;
}

/** A test run request's `propertySeed`, when the attempt has one. */
export async function seeded(ctx: SeedContext, attempt: number): Promise<{ propertySeed?: number }> {
  const seed = await attemptSeed(ctx, attempt);
  return seed === undefined ? {} : { propertySeed: seed };
}
