import { z } from 'zod';

/**
 * The messages between V8 coverage's worker thread (`coverageWorker.ts`) and its caller
 * (`collectV8CoverageOffThread`, `coverageThread.ts`). Each side parses what the other posts:
 * the two are separate builds, and a mismatch is an error, never a measure believed.
 */
/**
 * Said of every coverage file refused: the measure is not Node's, and nothing of it counts. Here,
 * not beside the reader, so that the run's thread never loads TypeScript (the reader's, in the worker).
 */
export const NOT_NODES = 'the coverage measure was written by something other than Node';

export const ToCoverage = z.object({
  dir: z.string(),
  root: z.string(),
  measure: z.array(z.string()),
  /** The processes the frozen preload recorded; absent, the pids are not checked. */
  pids: z.array(z.number().int()).optional(),
  /** The measured files' text as the tests ran them (null: not there); absent, they are read from disk. */
  texts: z.record(z.string(), z.string().nullable()).optional(),
});
export type ToCoverage = z.infer<typeof ToCoverage>;

const LineHits = z.tuple([z.number().int(), z.number().int().nonnegative()]);

export const FromCoverage = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('collected'),
    files: z.array(z.object({ file: z.string(), lines: z.array(LineHits) })),
    unloaded: z.array(z.string()),
  }),
  /** `collectV8Coverage` threw: its message, word for word. */
  z.object({ type: z.literal('failed'), message: z.string() }),
]);
export type FromCoverage = z.infer<typeof FromCoverage>;
