import { RunStop } from '../../recovery/runStop';
import type { RunContext } from '../common/context';

/**
 * Stops the run when the installed tools that judge its tests were changed by a command and
 * could not be put back: every later verdict would be the changed runner's, so no attempt or
 * gate runs after it. Stops it too when, without the sandbox, a file of the workspace changed
 * while a command ran and nothing tells who wrote it: it is kept as it is (it may be the
 * user's), and every later command would run on it. Asked after each attempt's checks, after the baselines and before the
 * verdict; the runner voids each command that saw a change on its own, this ends the run.
 */
export async function stopIfToolsChanged(ctx: RunContext): Promise<void> {
  // The user's saves its commands saw are logged first, the run's stop or not: every view names them.
  const saves = ctx.deps.tests.userSavesSeen?.() ?? [];
  if (saves.length) await ctx.log.emit({ type: 'userSaves.kept', files: saves.map(({ path, change }) => ({ path, change })) });
  const files = (await ctx.deps.tests.unrestoredTools?.(ctx.signal)) ?? [];
  if (files.length) throw new RunStop({ kind: 'judgingToolsChanged', files }, 'failed');
  // Asked at the same points, for the same reason: a file a command may have written stays in the workspace.
  const unattributed = ctx.deps.tests.unattributedWrites?.() ?? [];
  if (unattributed.length) throw new RunStop({ kind: 'unattributedWrites', files: unattributed }, 'failed');
}
