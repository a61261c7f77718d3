import { CancelledError, ModelTransportError, TicketRunnerError } from '../../../core/errors';
import type { ModelPort, ModelRequest, ModelResponse } from '../../../core/ports/model';
import type { ModelInfo, ModelRole } from '../../../core/schema/events';
import { renderCoderFile } from '../../../core/stages/coder/coderAnswer';
import type { ModelScript, ScriptedAnswer } from './scriptSchema';
import { roleWords } from '../../../core/run/views/words';

/** A run's roles: the drafter's calls belong to no run, so no run's position counts them. */
type RunRole = Exclude<ModelRole, 'drafter'>;

/** Calls per role: where a script is read from. */
export type ScriptPosition = Record<RunRole, number>;

/**
 * Where a run that goes on from its log reads its script: the calls per role it keeps, and the
 * attempts its resumes added. A run resumed after an attempt passed runs the tests again as an
 * attempt of its own, which the uninterrupted recording never made: each later call comes one
 * attempt number later than recorded.
 */
export type ScriptStart = Partial<ScriptPosition> & { attemptShift?: number };

/**
 * The script has no recorded answer for a call, or the call is not the one recorded: the
 * recording does not cover this run. Not a contract error of a model (which the stages reject
 * and ask again), so no stage retries it and the run ends with its message, which the user
 * reads: it says what happened in plain words, and what likely made the run go another way.
 */
export class ScriptExhaustedError extends TicketRunnerError {
  override readonly name = 'ScriptExhaustedError';
}

/** Rough token estimate for scripted calls: budgets still count, and the report says "scripted". */
const estimateTokens = (chars: number): number => Math.ceil(chars / 4);

/**
 * The scripted provider: a test and demo tool that replays recorded answers by role and
 * call order. It always says that it is one (`info.scripted`, the model name), and it
 * fails loudly when the script runs out or a call does not match its recording. A run that
 * goes on from its log (resume, an accepted correction) gets one built at the calls that log
 * keeps (`scriptPosition`): where to read on is this adapter's business, not the core's.
 */
export class ScriptedModel implements ModelPort {
  readonly info: ModelInfo;
  private readonly cursor: ScriptPosition;
  private readonly attemptShift: number;
  /** The drafter's answers read so far: a draft is no run, so no run's position holds it. */
  private drafted = 0;

  constructor(
    private readonly script: ModelScript,
    /** Reads a `{ from }` file beside the script. */
    private readonly readBeside: (path: string) => string,
    readonly source: string,
    /** The calls already answered per role, and the attempts resumes added; none for a new run. */
    start: ScriptStart = {},
    /**
     * Why the run may have gone another way than the recorded one, asked only once the
     * recording falls short (an earlier run's change still in the workspace, say).
     */
    private readonly likelyCause: () => Promise<string | undefined> = async () => undefined,
  ) {
    this.info = { provider: 'scripted', model: `scripted (${source})`, scripted: true };
    this.cursor = {
      coder: start.coder ?? 0,
      debugger: start.debugger ?? 0,
      reviewer: start.reviewer ?? 0,
      testReviewer: start.testReviewer ?? 0,
    };
    this.attemptShift = start.attemptShift ?? 0;
  }

  /** How many recorded answers are left per role, for "the script was not used up" checks. */
  remaining(): Record<RunRole, number> {
    const left = {} as Record<RunRole, number>;
    for (const role of Object.keys(this.cursor) as RunRole[]) left[role] = this.script[role].length - this.cursor[role];
    return left;
  }

  /** A replay costs nothing: a batch's dollar cap never holds it back. */
  maxCostUsd(): number {
    return 0;
  }

  async complete(request: ModelRequest, signal: AbortSignal): Promise<ModelResponse> {
    const started = Date.now();
    const queue = request.role === 'drafter' ? (this.script.drafter ?? []) : this.script[request.role];
    const index = request.role === 'drafter' ? this.drafted : this.cursor[request.role];
    const answer = queue[index];
    if (!answer) {
      throw await this.notCovered(
        `it asked the ${roleWords(request.role)} for answer ${index + 1} (attempt ${request.attempt}), and the recording holds ${queue.length}`,
      );
    }
    if (request.role === 'drafter') this.drafted++;
    else this.cursor[request.role]++;
    const mismatch = this.mismatch(answer, request, index);
    if (mismatch) throw await this.notCovered(mismatch);
    if (signal.aborted) throw new CancelledError('cancelled');
    if (answer.fault === 'transportError')
      throw new ModelTransportError(`scripted model: recorded transport failure (${request.role} #${index + 1})`, 0);
    const text = this.textOf(answer);
    await this.stream(text, answer, request, signal);
    const prompt = request.system.length + request.messages.reduce((n, m) => n + m.content.length, 0);
    return {
      text,
      structured: answer.structured,
      toolCalls: (answer.toolCalls ?? []).map((c, i) => ({ id: `scripted-${request.role}-${index}-${i}`, name: c.name, input: c.input })),
      stopReason: answer.stopReason ?? (answer.toolCalls?.length ? 'toolUse' : 'end'),
      usage: {
        inputTokens: estimateTokens(prompt),
        outputTokens: estimateTokens(text.length + JSON.stringify(answer.structured ?? '').length),
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
      },
      costUsd: 0,
      latencyMs: Date.now() - started,
      retries: 0,
    };
  }

  /** How a recorded answer does not fit the call it would answer; undefined when it fits. */
  private mismatch(answer: ScriptedAnswer, request: ModelRequest, index: number): string | undefined {
    const e = answer.expect;
    if (!e) return undefined;
    const which = `the ${roleWords(request.role)}'s answer ${index + 1}`;
    if (e.attempt !== undefined && e.attempt + this.attemptShift !== request.attempt) {
      const here =
        this.attemptShift > 0
          ? ` (attempt ${e.attempt + this.attemptShift} in this run, whose resumes ran the tests again as attempts of their own)`
          : '';
      return `${which} was recorded for attempt ${e.attempt}${here}, and this call is for attempt ${request.attempt}`;
    }
    if (e.thinking !== undefined && e.thinking !== Boolean(request.thinking)) {
      return `${which} was recorded with extended thinking ${e.thinking ? 'on' : 'off'}, and this call has it ${request.thinking ? 'on' : 'off'}`;
    }
    const prompt = [request.system, ...request.messages.map((m) => m.content)].join('\n');
    const missing = e.promptIncludes.find((needle) => !prompt.includes(needle));
    return missing === undefined
      ? undefined
      : `${which} was recorded for a prompt that says ${JSON.stringify(missing)}, and this one does not`;
  }

  /** The run went another way than the recording: said as that, with its likely cause when one is known. */
  private async notCovered(how: string): Promise<ScriptExhaustedError> {
    const cause = await this.likelyCause().catch(() => undefined);
    return new ScriptExhaustedError(
      `the recorded answers in ${this.source} do not cover this run: ${how}. Recorded answers replay the run they were recorded from, ` +
        `on the project as it was then; this run went another way.${cause ? ` ${cause}` : ''}`,
    );
  }

  private textOf(answer: ScriptedAnswer): string {
    const parts: string[] = [];
    if (answer.preamble) parts.push(answer.preamble);
    if (answer.text) parts.push(answer.text);
    for (const [path, content] of Object.entries(answer.files ?? {})) {
      parts.push(renderCoderFile(path, typeof content === 'string' ? content : this.readBeside(content.from)));
    }
    return parts.join('\n\n');
  }

  /** Feeds the text to `onText` in chunks, so stream watchers see what a real stream shows. */
  private async stream(text: string, answer: ScriptedAnswer, request: ModelRequest, signal: AbortSignal): Promise<void> {
    if (answer.fault === 'stall') {
      await new Promise<never>((_, reject) => {
        const stop = () => reject(new CancelledError('stalled scripted stream stopped'));
        if (signal.aborted) stop();
        signal.addEventListener('abort', stop, { once: true });
      });
    }
    if (!request.onText) return;
    const size = answer.chunkChars ?? 400;
    let soFar = '';
    for (let i = 0; i < text.length; i += size) {
      if (signal.aborted) throw new CancelledError('cancelled');
      const delta = text.slice(i, i + size);
      soFar += delta;
      request.onText(delta, soFar);
      // Yield so an abort from a watcher lands between chunks, as with a real stream.
      await Promise.resolve();
    }
  }
}
