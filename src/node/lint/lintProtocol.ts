import { z } from 'zod';

/** What EslintLinter asks its worker (`eslintWorker.ts`), one JSON line each. */
export const LintRequest = z.object({
  id: z.number(),
  /** The ESLint module to load, resolved by the linter (the workspace's, or the fallback). */
  eslintPath: z.string(),
  flat: z.boolean(),
  cwd: z.string(),
  files: z.array(z.string()),
});
export type LintRequest = z.infer<typeof LintRequest>;

/** One of ESLint's messages, as far as the linter reads it; ESLint's other fields pass. */
export const LintMessage = z
  .object({
    ruleId: z.string().nullable(),
    severity: z.number(),
    message: z.string(),
    line: z.number().optional(),
    column: z.number().optional(),
  })
  .loose();
export type LintMessage = z.infer<typeof LintMessage>;

/**
 * The worker's answer: ESLint's results; the error ESLint threw (a broken config or plugin);
 * or `restart`, naming a file the worker loaded that changed since, so it must be replaced.
 * The worker shares its process with the workspace's config and plugins: the answer is
 * checked, not believed.
 */
export const LintAnswer = z.union([
  z.object({ id: z.number(), results: z.array(z.object({ filePath: z.string(), messages: z.array(LintMessage) }).loose()) }),
  z.object({ id: z.number(), error: z.string() }),
  z.object({ id: z.number(), restart: z.string() }),
]);
export type LintAnswer = z.infer<typeof LintAnswer>;
