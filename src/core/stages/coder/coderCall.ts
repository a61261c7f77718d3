import type { RunContext } from '../common/context';
import { stopFromSignal } from '../../recovery/budgets';
import { runTestsGuidance } from './prompt';
import { RunTestsTool } from './runTestsTool';
import type { CoderFile } from './coderAnswer';
import { type CoderCall, converse } from './editConversation';
import { recoveryOf } from './watchedCall';

/** Appended to the prompt of rung 1's retry. */
export const CODE_ONLY_INSTRUCTION =
  'Your previous answer was stopped because it was not code. Answer with code only: make the change with str_replace_based_edit_tool edits, ' +
  'or give the whole content of every file you change, each in a fenced block whose info string names the path. No explanation before or after.';

/** What one Coder call produced: the attempt's candidate files, whole, and the answer's last words. */
export interface CoderOutcome {
  files: CoderFile[];
  text: string;
}

/**
 * Asks the Coder for an attempt's answer, with rungs 1 and 4 around the call. Rung 1: a
 * stream the watcher stopped, or an answer whose anomaly is urgent (when no edit was made), is
 * retried once with the opposite thinking mode and a code-only instruction; the retry's answer
 * stands whatever it is (a stopped retry gives no files), and the attempt's checks judge it.
 */
export async function askCoder(ctx: RunContext, call: CoderCall): Promise<CoderOutcome> {
  const policy = recoveryOf(ctx);
  // One tool per attempt: rung 1's retry shares the attempt's tool-call limit.
  const tool = ctx.deps.candidates && policy.maxToolCalls > 0 ? new RunTestsTool(ctx, call.attempt, policy.maxToolCalls) : undefined;
  // The Coder is told about the tool exactly when it is offered, and how many calls it has.
  let current = tool ? { ...call, system: `${call.system}\n\n${runTestsGuidance(tool.limit)}` } : call;
  const first = current;
  for (let pass = 1; ; pass++) {
    if (ctx.signal.aborted) throw stopFromSignal(ctx.signal);
    const { turn, files, edited } = await converse(ctx, current, tool);
    const trouble =
      turn.kind === 'stopped'
        ? { trigger: turn.verdict.reason, detail: `the stream was stopped (${turn.verdict.reason}): ${turn.verdict.detail}` }
        : turn.response.anomaly.urgent && !edited
          ? {
              trigger: 'anomaly' as const,
              detail: `the answer scored an urgent anomaly (${turn.response.anomaly.signals.map((s) => `${s.name}: ${s.detail}`).join('; ')})`,
            }
          : undefined;
    if (!trouble || pass === 2) return { files, text: turn.kind === 'answer' ? turn.response.text : '' };
    const thinking = !current.thinking;
    await ctx.log.emit({
      type: 'rung.fired',
      attempt: call.attempt,
      rung: 1,
      trigger: trouble.trigger,
      thinking,
      reason: `${trouble.detail}; retrying once with thinking ${thinking ? 'on' : 'off'} and a code-only instruction`,
    });
    current = { ...first, thinking, task: `${first.task}\n\n${CODE_ONLY_INSTRUCTION}` };
  }
}
