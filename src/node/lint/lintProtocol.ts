/** What EslintLinter asks its worker (`eslintWorker.ts`), one JSON line each. */
export interface LintRequest {
  id: number;
  /** The ESLint module to load, resolved by the linter (the workspace's, or the fallback). */
  eslintPath: string;
  flat: boolean;
  cwd: string;
  files: string[];
}

export interface LintMessage {
  ruleId: string | null;
  severity: number;
  message: string;
  line?: number;
  column?: number;
}

/**
 * The worker's answer: ESLint's results; the error ESLint threw (a broken config or plugin);
 * or `restart`, naming a file the worker loaded that changed since, so it must be replaced.
 */
export type LintAnswer =
  | { id: number; results: { filePath: string; messages: LintMessage[] }[] }
  | { id: number; error: string }
  | { id: number; restart: string };
