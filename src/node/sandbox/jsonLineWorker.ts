import { z } from 'zod';
import { errorMessage } from '../../core/errors';
import { checkToolOutput } from '../../core/schema/toolOutput';
import type { JailedProcess, ProcessJail } from './processJail';

/** How much of a worker's stderr is kept for an error's detail. */
const STDERR_TAIL = 2000;

/** What one request came to: the worker's answer, or why there is none (the worker is then gone). */
export type WorkerOutcome<A> = { answer: A } | { stopped: 'aborted' } | { stopped: 'timeout' | 'exited'; detail: string };

export interface JsonLineWorkerOptions<A> {
  jail: ProcessJail;
  /** The node that runs the script; the extension host's execPath is Electron. */
  nodePath: string;
  script: string;
  cwd: string;
  /** The worker's line as an answer, or undefined for a line that is none (a plugin's print). */
  parse: (line: string) => A | undefined;
  /** What the worker is, in an error's words: "the lint process". */
  name: string;
}

/**
 * A long-lived worker process of the run that loads the workspace's own tool (its ESLint, its
 * TypeScript): code the workspace controls. It runs through the run's jail (the OS sandbox and
 * the allowlisted environment), answers one JSON request per line on stdin with one JSON line
 * on stdout, one request at a time, and is frozen between requests, so that nothing the
 * workspace's code leaves running acts beside the rest of the run. Started at the first
 * request; killed, with everything it started, on abort, on timeout and at `stop`.
 */
export class JsonLineWorker<A extends { id: number }> {
  private proc: JailedProcess | undefined;
  private stderr = '';
  private waiting: { id: number; resolve: (outcome: WorkerOutcome<A>) => void } | undefined;
  private requests = 0;

  constructor(private readonly o: JsonLineWorkerOptions<A>) {}

  /** The worker's process, while one is alive. */
  get process(): JailedProcess | undefined {
    return this.proc?.alive ? this.proc : undefined;
  }

  /** Sends `request` with a fresh id and waits for the answer that carries it. */
  async ask(request: object, signal: AbortSignal, timeoutMs: number): Promise<WorkerOutcome<A>> {
    // A worker that ended between calls (killed from outside) is replaced.
    if (this.proc && !this.proc.alive) this.proc = undefined;
    const proc = (this.proc ??= await this.start(signal));
    const id = ++this.requests;
    proc.thaw();
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    try {
      const outcome = await new Promise<WorkerOutcome<A>>((resolve) => {
        this.waiting = { id, resolve };
        onAbort = () => resolve({ stopped: 'aborted' });
        signal.addEventListener('abort', onAbort, { once: true });
        if (signal.aborted) onAbort();
        timer = setTimeout(
          () => resolve({ stopped: 'timeout', detail: `no answer within ${timeoutMs} ms; ${this.o.name} was killed` }),
          timeoutMs,
        );
        void proc.exited.then(() => {
          const why = this.stderr.trim().split('\n').slice(-3).join(' ').slice(-500);
          resolve({
            stopped: 'exited',
            detail: `${this.o.name} ended (${String(proc.child.exitCode ?? proc.child.signalCode)})${why ? `: ${why}` : ''}`,
          });
        });
        proc.child.stdin.write(`${JSON.stringify({ ...request, id })}\n`);
      });
      if ('stopped' in outcome) await this.stop();
      return outcome;
    } finally {
      clearTimeout(timer);
      if (onAbort) signal.removeEventListener('abort', onAbort);
      this.waiting = undefined;
      if (this.proc === proc && proc.alive) await proc.freeze();
    }
  }

  /** Kills the worker and what it started; the next request starts another. */
  async stop(): Promise<void> {
    const proc = this.proc;
    this.proc = undefined;
    await proc?.stop();
  }

  private async start(signal: AbortSignal): Promise<JailedProcess> {
    const proc = await this.o.jail.start(this.o.nodePath, [this.o.script], { cwd: this.o.cwd, signal });
    this.stderr = '';
    let pending = '';
    proc.child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      pending += chunk;
      for (let nl = pending.indexOf('\n'); nl >= 0; nl = pending.indexOf('\n')) {
        const line = pending.slice(0, nl);
        pending = pending.slice(nl + 1);
        const answer = this.o.parse(line);
        if (answer && this.waiting?.id === answer.id) this.waiting.resolve({ answer });
      }
    });
    proc.child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      this.stderr = (this.stderr + chunk).slice(-STDERR_TAIL);
    });
    // A worker that could not start (no node) ends at once; its error is the answer's.
    proc.child.on('error', (err) => {
      this.stderr += err.message;
    });
    proc.child.stdin.on('error', () => {
      // EPIPE: the worker died; its exit answers the call.
    });
    return proc;
  }
}

/** Any answer carries its request's id; a line without one is not meant for the caller. */
const AnswerId = z.object({ id: z.number() }).loose();

/**
 * A worker's line as an answer of `schema`. A line that is not JSON or has no id is left alone
 * (the workspace's code may print to stdout); one with an id that is no answer is answered with
 * an error that says so (`misfit`), so the caller reports it instead of believing it.
 */
export function answerLine<A extends { id: number }>(
  schema: z.ZodType<A>,
  misfit: string,
): (line: string) => A | { id: number; error: string } | undefined {
  return (line) => {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      return undefined;
    }
    const id = AnswerId.safeParse(value);
    if (!id.success) return undefined;
    try {
      return checkToolOutput(schema, value, misfit);
    } catch (err) {
      return { id: id.data.id, error: errorMessage(err) };
    }
  };
}
