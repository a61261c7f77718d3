import { z } from 'zod';

/** What TscTypeCheck asks its type-check worker (`tscServer.ts`), one JSON line each. */
export const TscRequest = z.object({
  id: z.number(),
  /** The folder of the TypeScript package to load: the workspace's own, or the bundled fallback. */
  typescript: z.string(),
  /** The tsconfig, absolute, as `tsc -p` takes it. */
  configFile: z.string(),
  /** Passed as `--tsBuildInfoFile` is: it only makes `--incremental` a valid option; nothing is written. */
  tsBuildInfoFile: z.string(),
});
export type TscRequest = z.infer<typeof TscRequest>;

/**
 * The worker's answer: what `tsc --noEmit -p <configFile> --pretty false --incremental` would
 * print, and how many of its diagnostics are errors; `unsupported` when the TypeScript lacks
 * the API the worker needs (the checker then runs tsc itself); or the error it threw. The worker
 * runs the workspace's TypeScript: the answer is checked, not believed.
 */
export const TscAnswer = z.union([
  z.object({
    id: z.number(),
    output: z.string(),
    errors: z.number().int().nonnegative(),
    files: z.number().int().nonnegative(),
    reused: z.number().int().nonnegative(),
  }),
  z.object({ id: z.number(), unsupported: z.string() }),
  z.object({ id: z.number(), error: z.string() }),
]);
export type TscAnswer = z.infer<typeof TscAnswer>;
