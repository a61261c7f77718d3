import type { RunContext } from '../context';
import { pristineScope, readAll, scopePaths } from '../debuggerInputs';
import { unifiedDiff } from '../gates/diff';
import { coderContext, coderTask } from '../prompts';
import { heldOutSecrets, leakedIn, WITHHELD_BRIEF, withoutHeldOut } from '../heldOutLeaks';

/**
 * The Coder's prompt for an attempt, in the order the prompt cache wants: the context every
 * call of the run shares (the files as they were before the run, so it stays byte for byte the
 * same), then the task, which carries what changed since as unified diffs.
 */
export async function coderPromptParts(
  ctx: RunContext,
  input: { brief?: string; lastFailure?: string },
): Promise<{ context: string; task: string; heldOut?: { secrets: string[]; briefWithheld: boolean } }> {
  const pristine = await pristineScope(ctx);
  // A brief that quotes a held-out case is refused whole; any other such text is taken out where it is.
  const secrets = heldOutSecrets(ctx.manifest, pristine);
  const briefWithheld = input.brief !== undefined && leakedIn(input.brief, secrets).length > 0;
  const brief = briefWithheld ? WITHHELD_BRIEF : input.brief;
  const lastFailure = input.lastFailure === undefined ? undefined : withoutHeldOut(input.lastFailure, secrets).text;
  const before = new Map(pristine.map((f) => [f.path, f.content]));
  const changes: string[] = [];
  for (const path of scopePaths(ctx)) {
    const now = await ctx.deps.workspace.readFile(path);
    const was = before.get(path) ?? null;
    if (now !== was) changes.push(unifiedDiff({ path, before: was, after: now }));
  }
  return {
    context: coderContext({ manifest: ctx.manifest, files: pristine, tests: await readAll(ctx, ctx.manifest.testFiles) }),
    task: coderTask({ changes, brief, lastFailure }),
    ...(secrets.length ? { heldOut: { secrets, briefWithheld } } : {}),
  };
}
