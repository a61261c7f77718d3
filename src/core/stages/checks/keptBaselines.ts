import type { z } from 'zod';
import { CancelledError, isAbort } from '../../errors';
import type { KeptBaselinesPort, KeptMeasure } from '../../ports/keptBaselines';
import type { RunContext } from '../common/context';

/** The earlier run whose measurement a run took instead of measuring, as the log records it. */
export interface ReusedFrom {
  runId: string;
  /** When that run measured it (ISO time). */
  at: string;
}

/** One thing a baseline measures, and what it asks: the key is the workspace's fingerprint with these. */
export interface BaselinePart<T> {
  name: 'typecheck' | 'projectTests';
  /** What the measurement was asked (the files, the runner): any JSON. */
  question: unknown;
  /** What a kept measurement must parse as, since another process wrote it. */
  schema: z.ZodType<T>;
  /** Whether a measurement may be kept: one that timed out, could not run or was disturbed is taken again next time. */
  keepable: (value: T) => boolean;
}

/** A measurement, and the run it came from when it was reused. */
export interface Measured<T> {
  value: T;
  reusedFrom?: ReusedFrom;
}

/** How a baseline's part is measured: afresh, or taken from an earlier run when nothing it reads changed. */
export type MeasureBaseline = <T>(part: BaselinePart<T>, measure: () => Promise<T>) => Promise<Measured<T>>;

export const measureAfresh: MeasureBaseline = async (_part, measure) => ({ value: await measure() });

export interface BaselineKeeper {
  measure: MeasureBaseline;
  /**
   * Keeps what was measured, if `keep` and nothing the measurements could read changed while
   * they ran (a save beside the run, a test that wrote and put back), and lets other runs on the
   * same workspace go on. Called once, however the baselines ended.
   */
  settle(keep: boolean): Promise<void>;
}

/** What is kept changes shape, or what a part measures changes meaning: every older entry is then a miss. */
const FORMAT = 1;

/**
 * The baselines of one run, measured or reused. Runs on one workspace state (a batch's trees of
 * one commit) measure one at a time: the first measures and keeps, the others wait for it and
 * reuse, so a batch pays for one baseline, not one per ticket.
 */
export async function openBaselineKeeper(ctx: RunContext): Promise<BaselineKeeper> {
  const port = ctx.deps.keptBaselines;
  const print = port ? await port.fingerprint(ctx.signal) : undefined;
  if (!port || !print) return { measure: measureAfresh, settle: () => Promise.resolve() };
  const release = await port.claim(print, ctx.signal);
  const pending: { key: string; kept: KeptMeasure }[] = [];
  const keyOf = (part: BaselinePart<unknown>) => ctx.deps.hash(JSON.stringify([FORMAT, print, part.name, part.question]));
  let settled = false;
  return {
    measure: async <T>(part: BaselinePart<T>, measure: () => Promise<T>): Promise<Measured<T>> => {
      const key = keyOf(part as BaselinePart<unknown>);
      const reused = await recall(port, key, part.schema);
      if (reused) return reused;
      const value = await measure();
      if (part.keepable(value)) pending.push({ key, kept: { value, runId: ctx.log.runId, at: ctx.deps.clock.now().toISOString() } });
      return { value };
    },
    async settle(keep: boolean): Promise<void> {
      if (settled) return;
      settled = true;
      try {
        if (keep && pending.length && (await unchanged(port, print, ctx.signal))) {
          for (const { key, kept } of pending) await port.keep(key, kept);
        }
      } finally {
        await release();
      }
    },
  };
}

async function recall<T>(port: KeptBaselinesPort, key: string, schema: z.ZodType<T>): Promise<Measured<T> | undefined> {
  const kept = await port.recall(key);
  const parsed = kept && schema.safeParse(kept.value);
  return kept && parsed?.success ? { value: parsed.data, reusedFrom: { runId: kept.runId, at: kept.at } } : undefined;
}

/** Whether the workspace is still as it was fingerprinted; a cancel is the run's, never an answer. */
async function unchanged(port: KeptBaselinesPort, print: string, signal: AbortSignal): Promise<boolean> {
  try {
    return (await port.fingerprint(signal)) === print;
  } catch (err) {
    if (isAbort(err) || err instanceof CancelledError) throw err;
    return false;
  }
}
