import { z } from 'zod';

/**
 * The messages between V8 coverage's worker thread (`coverageWorker.ts`) and its caller
 * (`collectV8CoverageOffThread`, `coverageThread.ts`). Each side parses what the other posts:
 * the two are separate builds, and a mismatch is an error, never a measure believed.
 */
export const ToCoverage = z.object({
  dir: z.string(),
  root: z.string(),
  measure: z.array(z.string()),
  /** The processes the frozen preload recorded; absent, the pids are not checked. */
  pids: z.array(z.number().int()).optional(),
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
