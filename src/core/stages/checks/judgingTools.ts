import { RunStop } from '../../recovery/runStop';
import type { RunContext } from '../context';

/**
 * Stops the run when the installed tools that judge its tests were changed by a command and
 * could not be put back: every later verdict would be the changed runner's, so no attempt or
 * gate runs after it. Asked after each attempt's checks, after the baselines and before the
 * verdict; the runner voids each command that saw a change on its own, this ends the run.
 */
export async function stopIfToolsChanged(ctx: RunContext): Promise<void> {
  const files = (await ctx.deps.tests.unrestoredTools?.(ctx.signal)) ?? [];
  if (files.length) throw new RunStop({ kind: 'judgingToolsChanged', files }, 'failed');
}
