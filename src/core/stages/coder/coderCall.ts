import { callModel, recordAnomaly, type CallContext, type RunRequest, type ScoredResponse } from '../modelCall';
import type { RunContext } from '../context';
import type { ModelMessage } from '../../ports/model';
import type { RecoveryPolicy } from '../../schema/events';
import { type StreamVerdict, StreamWatch } from '../../recovery/anomalies';
import { stopFromSignal } from '../../recovery/budgets';
import { DEFAULT_RECOVERY } from '../../recovery/policy';
import { RunTestsTool, runTestsGuidance } from './runTestsTool';

/** Appended to the prompt of rung 1's retry. */
export const CODE_ONLY_INSTRUCTION =
  'Your previous answer was stopped because it was not code. Answer with code only: the whole content of every file you change, ' +
  'each in a fenced block whose info string names the path. No explanation before or after.';

export interface CoderCall {
  attempt: number;
  system: string;
  prompt: string;
  /** The attempt's thinking mode; rung 1's retry flips it. */
  thinking: boolean;
}

type Stopped = Extract<StreamVerdict, { stop: true }>;

/** Why rung 1 stopped a stream: carried as the call's abort reason, so the log says it. */
class StreamStopped extends Error {
  override readonly name = 'StreamStopped';
  constructor(readonly verdict: Stopped) {
    super(`rung 1 stopped the stream (${verdict.reason}): ${verdict.detail}`);
  }
}

export type Turn = { kind: 'answer'; response: ScoredResponse } | { kind: 'stopped'; verdict: Stopped };

export const recoveryOf = (ctx: Pick<CallContext, 'recovery'>): RecoveryPolicy => ctx.recovery ?? DEFAULT_RECOVERY;

/**
 * One call under rung 1's watch: the stream is judged on every delta and on a timer (a
 * stream that never starts sends no delta), and stopped with the call's own controller,
 * never the run's, so the caller goes on to the retry. The run's abort still reaches the
 * call. The Coder's calls expect code; a structured answer (the drafter's) expects none, so
 * only the start deadline and the loop check stop it.
 */
export async function watchedCall(ctx: CallContext, request: RunRequest, expectCode = true): Promise<Turn> {
  const policy = recoveryOf(ctx);
  const own = new AbortController();
  const relay = () => own.abort(ctx.signal.reason);
  ctx.signal.addEventListener('abort', relay, { once: true });
  const watch = {
    expectCode,
    proseCharLimit: policy.proseCharLimit,
    startDeadlineMs: request.thinking ? policy.thinkingStartDeadlineMs : policy.startDeadlineMs,
  };
  const started = Date.now();
  const watcher = new StreamWatch(watch);
  let soFar = '';
  // Thinking or tool input streaming: the answer has started, though no text shows yet.
  let active = false;
  let stopped: Stopped | undefined;
  const judge = () => {
    if (stopped || own.signal.aborted || (active && soFar === '')) return;
    const verdict = watcher.verdict(Date.now() - started);
    if (verdict.stop) {
      stopped = verdict;
      own.abort(new StreamStopped(verdict));
    }
  };
  // Only the deadline needs a clock; the other verdicts come with the text.
  const timer = setInterval(judge, Math.max(10, Math.min(250, Math.floor(watch.startDeadlineMs / 4))));
  try {
    const onText = (delta: string, all: string) => {
      watcher.push(delta);
      soFar = all;
      judge();
    };
    const response = await callModel(ctx, { ...request, onText, onActivity: () => (active = true) }, own.signal);
    // A scripted stream can finish between the stop and the next chunk: the verdict stands.
    if (stopped) return { kind: 'stopped', verdict: stopped };
    return { kind: 'answer', response };
  } catch (err) {
    if (stopped && !ctx.signal.aborted) {
      // The partial answer is scored too: the receipt's signals say what the stream showed.
      await recordAnomaly(ctx, request, soFar);
      return { kind: 'stopped', verdict: stopped };
    }
    throw err;
  } finally {
    clearInterval(timer);
    ctx.signal.removeEventListener('abort', relay);
  }
}

/**
 * The Coder's conversation for one call: a watched turn, and while the model calls
 * `run_tests` (rung 4), the tool's results and another turn. The turns are capped a little
 * above the tool limit, so a model that keeps calling after refusals still ends.
 */
async function converse(ctx: RunContext, call: CoderCall, tool: RunTestsTool | undefined): Promise<Turn> {
  const messages: ModelMessage[] = [{ role: 'user', content: call.prompt }];
  const maxTurns = tool ? tool.limit + 2 : 1;
  for (let turn = 1; ; turn++) {
    const result = await watchedCall(ctx, {
      role: 'coder',
      attempt: call.attempt,
      system: call.system,
      messages: [...messages],
      thinking: call.thinking,
      ...(tool ? { tools: [tool.spec] } : {}),
    });
    if (result.kind === 'stopped') return result;
    const { response } = result;
    if (!tool || response.toolCalls.length === 0 || turn >= maxTurns) return result;
    messages.push({ role: 'assistant', content: response.text, toolCalls: response.toolCalls, ...(response.reasoning ? { reasoning: response.reasoning } : {}) });
    for (const toolCall of response.toolCalls) messages.push(await tool.answer(toolCall));
  }
}

/**
 * Asks the Coder for an attempt's answer, with rungs 1 and 4 around the call. Rung 1: a
 * stream the watcher stopped, or an answer whose anomaly is urgent, is retried once with
 * the opposite thinking mode and a code-only instruction; the retry's answer stands
 * whatever it is (a stopped retry gives no answer), and the attempt's checks judge it.
 * Returns the answer's text.
 */
export async function askCoder(ctx: RunContext, call: CoderCall): Promise<string> {
  const policy = recoveryOf(ctx);
  // One tool per attempt: rung 1's retry shares the attempt's tool-call limit.
  const tool = ctx.deps.candidates && policy.maxToolCalls > 0 ? new RunTestsTool(ctx, call.attempt, policy.maxToolCalls) : undefined;
  // The Coder is told about the tool exactly when it is offered, and how many calls it has.
  let current = tool ? { ...call, system: `${call.system}\n\n${runTestsGuidance(tool.limit)}` } : call;
  const first = current;
  for (let pass = 1; ; pass++) {
    if (ctx.signal.aborted) throw stopFromSignal(ctx.signal);
    const result = await converse(ctx, current, tool);
    const trouble =
      result.kind === 'stopped'
        ? { trigger: result.verdict.reason, detail: `the stream was stopped (${result.verdict.reason}): ${result.verdict.detail}` }
        : result.response.anomaly.urgent
          ? { trigger: 'anomaly' as const, detail: `the answer scored an urgent anomaly (${result.response.anomaly.signals.map((s) => `${s.name}: ${s.detail}`).join('; ')})` }
          : undefined;
    if (!trouble || pass === 2) return result.kind === 'answer' ? result.response.text : '';
    const thinking = !current.thinking;
    await ctx.log.emit({
      type: 'rung.fired',
      attempt: call.attempt,
      rung: 1,
      trigger: trouble.trigger,
      thinking,
      reason: `${trouble.detail}; retrying once with thinking ${thinking ? 'on' : 'off'} and a code-only instruction`,
    });
    current = { ...first, thinking, prompt: `${first.prompt}\n\n${CODE_ONLY_INSTRUCTION}` };
  }
}
