import { parentPort, workerData } from 'node:worker_threads';
import { CancelledError, errorMessage, isAbort } from '../../core/errors';
import { checkToolOutput, issuesLine } from '../../core/schema/toolOutput';
import {
  FromWorker,
  LanguageWorkerData,
  paramsOf,
  ToWorker,
  type Method,
  type ParamsOf,
  type ResultOf,
} from '../diagnostics/languageProtocol';

/**
 * What a worker answers: one service, or a workspace's two (diagnostics and ops); any other call
 * is an error. `dispose` lets go of the services when the worker is handed to another run.
 */
export type Handlers = { [M in Method]?: (params: ParamsOf<M>, id: number, signal: AbortSignal) => Promise<ResultOf<M>> } & {
  dispose?: () => void;
};

/** What the thread gives the services it serves. */
export interface LanguageCalls {
  /** Whether the call running now was cancelled: TypeScript's cancellation token reads it between steps. */
  interrupted: () => boolean;
  /** The caller's `allow` for one file of call `id`'s fix, asked across the threads. */
  allowOf: (id: number) => (path: string) => Promise<boolean>;
}

/** Makes the services for a run's start data: the worker's entry decides which there are. */
export type HandlersOf = (start: LanguageWorkerData, calls: LanguageCalls) => Promise<Handlers>;

/**
 * Serves the caller's calls in this worker thread, one at a time, in the order they came: a check
 * yields between files, and another call must not run in its gaps. The protocol (calls, cancels,
 * a fix's questions, a restart for another run) is this module's; the services are `handlersOf`'s.
 */
export function serveLanguageCalls(handlersOf: HandlersOf): void {
  const port = parentPort;
  if (!port) throw new Error('the language worker runs as a worker thread (node:worker_threads)');

  let data = checkToolOutput(LanguageWorkerData, workerData, 'the language worker was started with something that is not its start data');
  let cancelled = new Int32Array(data.cancelled);
  /** The call running now: the shared flag is read against it. */
  let current = 0;
  const post = (message: FromWorker) => port.postMessage(message);

  let asks = 0;
  const answers = new Map<number, (allowed: boolean) => void>();
  const calls: LanguageCalls = {
    interrupted: () => current !== 0 && Atomics.load(cancelled, 0) === current,
    allowOf: (id) => (path) =>
      new Promise<boolean>((resolve) => {
        const ask = ++asks;
        answers.set(ask, resolve);
        post({ type: 'allow', id, ask, paths: [path] });
      }),
  };

  let handlers = handlersOf(data, calls);
  // A service that cannot load fails every call with its reason, rather than the worker with none.
  handlers.catch(() => undefined);

  /**
   * The worker is handed to another run (LanguageWorker keeps idle workers): the last run's
   * services let go of their files, and the new run's are made from its start data. What stays is
   * what cannot differ between runs: the loaded (and compiled) modules, and what the services
   * share across runs, each reused only for the same text under the same settings.
   */
  async function restart(start: LanguageWorkerData): Promise<void> {
    const last = await handlers.catch(() => undefined);
    try {
      last?.dispose?.();
    } catch {
      // A service that fails to let go leaves only its files in the registry: the new run's
      // services are still made, and this call, in the queue, must not stop the calls after it.
    }
    data = start;
    cancelled = new Int32Array(start.cancelled);
    handlers = handlersOf(start, calls);
    handlers.catch(() => undefined);
  }

  /** The calls not yet answered, by id, each with the abort its `cancel` message pulls. */
  const open = new Map<number, AbortController>();

  async function serve(id: number, method: Method, raw: unknown): Promise<void> {
    const controller = open.get(id);
    if (!controller) return;
    try {
      if (controller.signal.aborted) throw new CancelledError(`${method} cancelled`);
      const params = checkToolOutput(paramsOf(method), raw, `the language worker got a ${method} call it cannot read`);
      current = id;
      const handler = (await handlers)[method] as ((p: typeof params, id: number, signal: AbortSignal) => Promise<unknown>) | undefined;
      if (!handler) throw new Error(`the ${data.service} worker answers no ${method} call`);
      post({ type: 'done', id, result: await handler(params, id, controller.signal) });
    } catch (err) {
      post({ type: 'failed', id, cancelled: err instanceof CancelledError || isAbort(err), message: errorMessage(err) });
    } finally {
      current = 0;
      open.delete(id);
    }
  }

  let queue = Promise.resolve();
  port.on('message', (raw: unknown) => {
    const parsed = ToWorker.safeParse(raw);
    if (!parsed.success) {
      // Only the caller posts here: a message it cannot have meant fails its call, if it names one.
      const id = (raw as { id?: unknown } | null)?.id;
      if (typeof id === 'number')
        post({
          type: 'failed',
          id,
          cancelled: false,
          message: `the language worker got a message it cannot read: ${issuesLine(parsed.error)}`,
        });
      return;
    }
    const message = parsed.data;
    if (message.type === 'restart') {
      queue = queue.then(() => restart(message.start));
    } else if (message.type === 'allowed') {
      answers.get(message.ask)?.(message.allowed);
      answers.delete(message.ask);
    } else if (message.type === 'cancel') {
      open.get(message.id)?.abort();
    } else {
      open.set(message.id, new AbortController());
      queue = queue.then(() => serve(message.id, message.method, message.params));
    }
  });
}
