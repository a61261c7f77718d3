import { Worker } from 'node:worker_threads';
import { CancelledError, errorMessage, ToolOutputError } from '../../core/errors';
import type { DiagnosticsPort, ParserPort, SymbolEntry } from '../../core/ports/checks';
import type { OpResult, OpScope, OpsPort } from '../../core/ports/ops';
import type { AppliedFix, CodeDiagnostic, ParseProblem } from '../../core/schema/checks';
import type { TicketOp } from '../../core/schema/ticket';
import { checkToolOutput, issuesLine } from '../../core/schema/toolOutput';
import {
  FromWorker,
  resultOf,
  type LanguageWorkerData,
  type Method,
  type ParamsOf,
  type ResultOf,
  type ToWorker,
} from './languageProtocol';
import type { AllowFix } from './languageService';
import { parkIdle, takeIdle } from './idleWorkers';
import { hasTypeScriptProject } from './tsProject';

/** What a worker serves, without the shared memory the caller adds. */
type WorkerStart = LanguageWorkerData extends infer D ? (D extends unknown ? Omit<D, 'cancelled'> : never) : never;

/** Call ids, unique in this process: a worker taken over from another caller may still answer that caller's cancelled call. */
let lastCallId = 0;

interface Pending {
  method: Method;
  allow?: AllowFix;
  settle: (outcome: { result: unknown } | { error: Error }) => void;
}

/**
 * A language service in a worker thread (`workers/languageWorker.ts`, built to `dist/languageWorker.js`):
 * started on the first call, so a run that checks nothing costs nothing; replaced on the next call
 * when it crashed; terminated by dispose. Calls are answered one at a time, in order. A cancelled
 * call is answered at once with CancelledError, and the worker is told through shared memory, which
 * TypeScript's cancellation token reads even while the worker's thread is busy. A call the worker
 * cannot finish (it crashed, ran out of memory, answered nonsense) is an error, never an answer.
 *
 * Disposed with no call left in it, the worker is kept idle a while (idleWorkers.ts), and the next
 * LanguageWorker of the same script and service takes it over: its modules are loaded and warm,
 * and the libraries' files it parsed are kept (keptLibraries.ts). A worker a call is still inside
 * (a cancelled one not yet stopped, an autofix waiting on an answer) is terminated instead.
 */
export class LanguageWorker {
  private worker: Worker | undefined;
  private readonly cancelled = new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT);
  private readonly pending = new Map<number, Pending>();
  /** The calls posted to the worker it has not answered yet, cancelled ones included. */
  private readonly inWorker = new Set<number>();
  private detach: (() => void) | undefined;

  constructor(
    private readonly script: string,
    private readonly start: WorkerStart,
    /** What a cancellation says was cancelled, as the in-thread service says it: `diagnostics`, `ops`. */
    private readonly what: string | ((method: Method) => string),
  ) {}

  call<M extends Method>(method: M, params: ParamsOf<M>, signal?: AbortSignal, allow?: AllowFix): Promise<ResultOf<M>> {
    const what = this.whatOf(method);
    if (signal?.aborted) return Promise.reject(new CancelledError(`${what} cancelled`));
    const worker = this.started();
    const id = ++lastCallId;
    return new Promise<ResultOf<M>>((resolve, reject) => {
      const onAbort = () => {
        // Read by TypeScript's cancellation token in the worker, however busy its thread is.
        Atomics.store(new Int32Array(this.cancelled), 0, id);
        this.post(worker, { type: 'cancel', id });
        this.pending.get(id)?.settle({ error: new CancelledError(`${what} cancelled`) });
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.pending.set(id, {
        method,
        allow,
        settle: (outcome) => {
          if (!this.pending.delete(id)) return;
          signal?.removeEventListener('abort', onAbort);
          // An idle worker keeps no process alive (a caller that forgot dispose still exits).
          if (this.pending.size === 0) worker.unref();
          if ('error' in outcome) reject(outcome.error);
          else resolve(outcome.result as ResultOf<M>);
        },
      });
      worker.ref();
      this.inWorker.add(id);
      this.post(worker, { type: 'call', id, method, params });
    });
  }

  /** Lets go of the worker (kept idle for the next caller when no call is inside it); a call still waiting ends cancelled. */
  dispose(): void {
    const worker = this.worker;
    this.worker = undefined;
    if (!worker) return;
    const idle = this.pending.size === 0 && this.inWorker.size === 0;
    this.failAll((method) => new CancelledError(`${this.whatOf(method)} cancelled: the language service was disposed`));
    this.detach?.();
    this.detach = undefined;
    if (!(idle && parkIdle(this.kind, worker))) void worker.terminate();
  }

  /** The thread serving this caller now, if one is started: a worker taken over keeps its id. */
  get threadId(): number | undefined {
    return this.worker?.threadId;
  }

  /** Workers of one kind can take each other's callers: the same script, serving the same service. */
  private get kind(): string {
    return `${this.script}\0${this.start.service}`;
  }

  private started(): Worker {
    if (this.worker) return this.worker;
    const start = { ...this.start, cancelled: this.cancelled } satisfies LanguageWorkerData;
    const kept = takeIdle(this.kind);
    const worker = kept ?? new Worker(this.script, { workerData: start, execArgv: [] });
    worker.unref();
    let crash: string | undefined;
    const onMessage = (raw: unknown) => this.receive(worker, raw);
    const onError = (err: Error) => {
      crash = errorMessage(err);
    };
    const onExit = (code: number) => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      this.failAll(
        new Error(`the TypeScript language service's worker stopped (exit code ${code})${crash ? `: ${crash}` : ''}; nothing was checked`),
      );
    };
    worker.on('message', onMessage);
    worker.on('error', onError);
    worker.on('exit', onExit);
    this.detach = () => {
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onExit);
    };
    // Ahead of any call, in the worker's queue: its services are made from this caller's start.
    if (kept) this.post(worker, { type: 'restart', start });
    this.worker = worker;
    return worker;
  }

  private receive(worker: Worker, raw: unknown): void {
    const parsed = FromWorker.safeParse(raw);
    if (!parsed.success) {
      // Our own build posted it: a mismatch of the two builds, which no answer survives.
      this.worker = undefined;
      this.failAll(
        new ToolOutputError(
          `the TypeScript language service's worker posted something that is not its protocol: ${issuesLine(parsed.error)}`,
        ),
      );
      void worker.terminate();
      return;
    }
    const message = parsed.data;
    if (message.type !== 'allow') this.inWorker.delete(message.id);
    const call = this.pending.get(message.id);
    if (!call) return;
    if (message.type === 'allow') {
      void this.answerAllow(worker, message, call);
    } else if (message.type === 'failed') {
      call.settle({ error: message.cancelled ? new CancelledError(message.message) : new Error(message.message) });
    } else {
      try {
        call.settle({
          result: checkToolOutput(
            resultOf(call.method),
            message.result,
            `the TypeScript language service's worker gave a ${call.method} result that is not one`,
          ),
        });
      } catch (err) {
        call.settle({ error: err instanceof Error ? err : new Error(String(err)) });
      }
    }
  }

  /** The caller's `allow` stays on its thread: the worker asks it for each file a fix touches. */
  private async answerAllow(worker: Worker, message: Extract<FromWorker, { type: 'allow' }>, call: Pending): Promise<void> {
    let allowed = false;
    try {
      for (const path of message.paths) if (!(allowed = call.allow ? await call.allow(path) : false)) break;
    } catch (err) {
      // As in the caller's thread, an `allow` that throws ends the autofix with its error, and the worker stops it.
      Atomics.store(new Int32Array(this.cancelled), 0, message.id);
      this.post(worker, { type: 'cancel', id: message.id });
      call.settle({ error: err instanceof Error ? err : new Error(String(err)) });
    }
    this.post(worker, { type: 'allowed', ask: message.ask, allowed });
  }

  private failAll(error: Error | ((method: Method) => Error)): void {
    for (const call of [...this.pending.values()]) call.settle({ error: typeof error === 'function' ? error(call.method) : error });
  }

  private whatOf(method: Method): string {
    return typeof this.what === 'string' ? this.what : this.what(method);
  }

  private post(worker: Worker, message: ToWorker): void {
    worker.postMessage(message);
  }
}

/** The DiagnosticsPort over a language service in a worker thread: the same answers as the service in this thread. */
export class WorkerDiagnostics implements DiagnosticsPort {
  constructor(private readonly worker: LanguageWorker) {}

  check(changed: string[], signal: AbortSignal): Promise<{ checkedFiles: string[]; diagnostics: CodeDiagnostic[]; checkedBy?: string }> {
    return this.worker.call('check', { changed }, signal);
  }

  autofix(files: string[], allow: AllowFix, signal: AbortSignal): Promise<{ applied: AppliedFix[]; refused: AppliedFix[] }> {
    return this.worker.call('autofix', { files }, signal, allow);
  }

  probe(
    path: string,
    content: string,
    signal: AbortSignal,
    overlays: readonly { path: string; content: string }[] = [],
  ): Promise<CodeDiagnostic[]> {
    return this.worker.call('probe', { path, content, overlays: [...overlays] }, signal);
  }

  resolveSymbol(file: string, symbol: string): Promise<string | null> {
    return this.worker.call('resolveSymbol', { file, symbol });
  }

  symbolsOf(file: string, owner?: string): Promise<SymbolEntry[]> {
    return this.worker.call('symbolsOf', owner === undefined ? { file } : { file, owner });
  }

  dispose(): void {
    this.worker.dispose();
  }
}

/** The OpsPort over NodeOps in a worker thread. */
export class WorkerOps implements OpsPort {
  constructor(private readonly worker: LanguageWorker) {}

  apply(op: TicketOp, scope: OpScope, signal: AbortSignal): Promise<OpResult> {
    return this.worker.call('apply', { op, scope: { write: [...scope.write], read: [...scope.read], tests: [...scope.tests] } }, signal);
  }

  async warm(signal: AbortSignal): Promise<void> {
    await this.worker.call('warm', {}, signal);
  }

  dispose(): void {
    this.worker.dispose();
  }
}

/** The ParserPort over Tree-sitter in a worker thread: a large file's parse and shape, off the caller's thread. */
export class WorkerParser implements ParserPort {
  constructor(private readonly worker: LanguageWorker) {}

  parse(path: string, content: string): Promise<ParseProblem[]> {
    return this.worker.call('parse', { path, content });
  }

  shape(path: string, content: string): Promise<string[]> {
    return this.worker.call('shape', { path, content });
  }

  async warm(paths: readonly string[], signal: AbortSignal): Promise<void> {
    await this.worker.call('warm', { paths: [...paths] }, signal);
  }

  dispose(): void {
    this.worker.dispose();
  }
}

export interface WorkerDiagnosticsOptions {
  /** The worker as the build ships it: `dist/languageWorker.js`. */
  script: string;
  libDir?: string;
  /** As LanguageServiceDiagnosticsOptions.keepProbes: for a service that only answers a ticket's checks. */
  keepProbes?: boolean;
}

/** createWorkspaceDiagnostics, in a worker thread: undefined when there is nothing to type-check. */
export function workerWorkspaceDiagnostics(root: string, o: WorkerDiagnosticsOptions): DiagnosticsPort | undefined {
  if (!hasTypeScriptProject(root)) return undefined;
  return new WorkerDiagnostics(
    new LanguageWorker(o.script, { service: 'diagnostics', root, libDir: o.libDir, keepProbes: o.keepProbes }, 'diagnostics'),
  );
}

/**
 * A workspace's diagnostics and ops in one worker thread, sharing the files TypeScript parsed: the
 * ops' program then costs little more than its checks. Their calls take turns. Without a
 * TypeScript project there are no diagnostics, and the ops run alone.
 */
export function workerWorkspaceLanguage(o: { script: string; root: string; libDir?: string; wasmDir: string; runtimeWasmDir?: string }): {
  diagnostics?: DiagnosticsPort;
  ops: OpsPort;
} {
  if (!hasTypeScriptProject(o.root)) return { ops: workerOps(o) };
  const what = (method: Method) => (method === 'apply' || method === 'warm' ? 'ops' : 'diagnostics');
  const worker = new LanguageWorker(
    o.script,
    { service: 'workspace', root: o.root, libDir: o.libDir, wasmDir: o.wasmDir, runtimeWasmDir: o.runtimeWasmDir },
    what,
  );
  return { diagnostics: new WorkerDiagnostics(worker), ops: new WorkerOps(worker) };
}

/** NodeOps, in a worker thread. */
export function workerOps(o: { script: string; root: string; libDir?: string; wasmDir: string; runtimeWasmDir?: string }): OpsPort {
  return new WorkerOps(
    new LanguageWorker(
      o.script,
      { service: 'ops', root: o.root, libDir: o.libDir, wasmDir: o.wasmDir, runtimeWasmDir: o.runtimeWasmDir },
      'ops',
    ),
  );
}

/** TreeSitterParser, in a worker thread. */
export function workerParser(o: { script: string; wasmDir: string; runtimeWasmDir?: string }): WorkerParser {
  return new WorkerParser(
    new LanguageWorker(o.script, { service: 'syntax', wasmDir: o.wasmDir, runtimeWasmDir: o.runtimeWasmDir }, 'parse'),
  );
}
