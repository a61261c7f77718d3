/**
 * Facts about the workspace beyond its files, checked before a run starts: whether the
 * project can run at all, and which files in scope hold work that git does not have.
 */
export interface EnvironmentPort {
  /** A message when the project declares dependencies that are not installed; null when fine. */
  dependencyProblem(): Promise<string | null>;
  /** Of these workspace-relative paths, those with changes git has not committed; null when git cannot tell (no repository, no git). */
  uncommitted(paths: readonly string[], signal: AbortSignal): Promise<string[] | null>;
}
