import { callModel, recordAnomaly, type CallContext, type RunRequest, type ScoredResponse } from '../common/modelCall';
import type { RecoveryPolicy } from '../../schema/events';
import { type StreamVerdict, StreamWatch } from '../../recovery/anomalies';
import { DEFAULT_RECOVERY } from '../../recovery/policy';

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
  // Rung 1's deadline on the run's clock, from the request's hand-off to the provider: keeping
  // the prompt in the log first can take a loaded disk longer than a short deadline. Only the
  // timer that asks is real (see below).
  const now = () => ctx.deps.clock.now().getTime();
  let started: number | undefined;
  const watcher = new StreamWatch(watch);
  let soFar = '';
  // Thinking or tool input streaming: the answer has started, though no text shows yet.
  let active = false;
  let stopped: Stopped | undefined;
  const judge = () => {
    if (started === undefined || stopped || own.signal.aborted || (active && soFar === '')) return;
    const verdict = watcher.verdict(now() - started);
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
    const sent = () => (started = now());
    const response = await callModel(ctx, { ...request, onText, onActivity: () => (active = true) }, own.signal, sent);
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
