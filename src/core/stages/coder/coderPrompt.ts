import type { RunContext } from '../context';
import { pristineScope, readAll, scopePaths } from '../debuggerInputs';
import { unifiedDiff } from '../gates/diff';
import { coderContext, coderTask } from '../prompts';

/**
 * The Coder's prompt for an attempt, in the order the prompt cache wants: the context every
 * call of the run shares (the files as they were before the run, so it stays byte for byte the
 * same), then the task, which carries what changed since as unified diffs.
 */
export async function coderPromptParts(ctx: RunContext, input: { brief?: string; lastFailure?: string }): Promise<{ context: string; task: string }> {
  const pristine = await pristineScope(ctx);
  const before = new Map(pristine.map((f) => [f.path, f.content]));
  const changes: string[] = [];
  for (const path of scopePaths(ctx)) {
    const now = await ctx.deps.workspace.readFile(path);
    const was = before.get(path) ?? null;
    if (now !== was) changes.push(unifiedDiff({ path, before: was, after: now }));
  }
  return {
    context: coderContext({ manifest: ctx.manifest, files: pristine, tests: await readAll(ctx, ctx.manifest.testFiles) }),
    task: coderTask({ changes, ...input }),
  };
}
