import type { WorkspacePort } from '../../ports/workspace';
import { baselineOf } from '../../run/baseline';
import type { RunContext } from './context';
import type { SourceFile } from './evidence';

/*
 * The files a role reads of the scope: the Coder's prompt, the Debugger's inputs and the
 * reviewers all read them here, so each sees the same files in the same order.
 */

/** The files that exist of `paths`, in that order (a missing one is left out). */
export async function readFiles(workspace: WorkspacePort, paths: readonly string[]): Promise<SourceFile[]> {
  const out: SourceFile[] = [];
  for (const path of paths) {
    const content = await workspace.readFile(path);
    if (content !== null) out.push({ path, content });
  }
  return out;
}

export const scopePaths = (ctx: RunContext) => [...ctx.manifest.scope.write, ...ctx.manifest.scope.read].map((f) => f.path);

/** The scope's files as they were before the run's first write of each (a file the run created is absent). */
export async function pristineScope(ctx: RunContext): Promise<SourceFile[]> {
  const baseline = baselineOf(ctx.log.events);
  const out: SourceFile[] = [];
  for (const path of scopePaths(ctx)) {
    const base = baseline.get(path);
    if (base === null) continue;
    const content = base === undefined ? await ctx.deps.workspace.readFile(path) : await ctx.log.getBlob(base);
    if (content !== null) out.push({ path, content });
  }
  return out;
}
