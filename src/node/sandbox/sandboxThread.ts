import { Worker } from 'node:worker_threads';
import { errorMessage, ToolOutputError } from '../../core/errors';
import { issuesLine } from '../../core/schema/toolOutput';
import { FromSandbox, type SandboxWrapper, type ToSandbox, type WrapConfig } from './sandboxProtocol';

interface Pending {
  resolve: (argv: string[]) => void;
  reject: (err: Error) => void;
}

/**
 * The sandbox runtime in a worker thread (`sandboxWorker.ts`, built to `dist/sandboxWorker.js`).
 * The runtime works synchronously: its start looks each tool up with `which` and runs bubblewrap
 * to ask its version, and each wrap looks the shell up again and walks the policy's paths, each a
 * child process waited for. On two busy cores that held the run's thread (in the editor, the
 * extension host) for up to a third of a second at once; in a worker it holds nothing. Wraps are
 * answered as the runtime answers them, its errors with their own words. A worker that stopped is
 * started again, and checked again, by the next wrap.
 */
export class WorkerManager implements SandboxWrapper {
  private worker: Promise<Worker> | undefined;
  private readonly pending = new Map<number, Pending>();
  private calls = 0;

  private constructor(private readonly script: string) {}

  /** The runtime's worker once it started and ran a command, or why it cannot. */
  static async start(script: string): Promise<WorkerManager | { off: string }> {
    const manager = new WorkerManager(script);
    const started = await manager.boot();
    return 'off' in started ? started : manager;
  }

  async wrapWithSandboxArgv(line: string, shell: string, config: WrapConfig, signal: AbortSignal, cwd: string): Promise<{ argv: string[] }> {
    signal.throwIfAborted();
    this.worker ??= this.boot().then((s) => {
      if ('off' in s) throw new Error(`the sandbox's worker stopped and cannot start again: ${s.off}`);
      return s.worker;
    });
    const worker = await this.worker;
    const id = ++this.calls;
    const argv = await new Promise<string[]>((resolve, reject) => {
      const onAbort = () => this.post(worker, { type: 'cancel', id });
      signal.addEventListener('abort', onAbort, { once: true });
      const done = () => {
        signal.removeEventListener('abort', onAbort);
        this.pending.delete(id);
        if (this.pending.size === 0) worker.unref();
      };
      this.pending.set(id, {
        resolve: (a) => {
          done();
          resolve(a);
        },
        reject: (err) => {
          done();
          reject(err);
        },
      });
      worker.ref();
      this.post(worker, { type: 'wrap', id, line, shell, config, cwd });
    });
    return { argv };
  }

  cleanupAfterCommand(): void {
    // Posted in order after the wrap it follows; a stopped worker keeps nothing to drop.
    void this.worker?.then((w) => this.post(w, { type: 'afterCommand' }), () => undefined);
  }

  /** A worker that loaded the runtime, checked its tools and ran one command, or why not. */
  private boot(): Promise<{ worker: Worker } | { off: string }> {
    return new Promise((resolve) => {
      let worker: Worker;
      try {
        worker = new Worker(this.script, { execArgv: [] });
      } catch (err) {
        resolve({ off: `the sandbox's worker did not start: ${errorMessage(err)}` });
        return;
      }
      let booted = false;
      let crash: string | undefined;
      worker.on('message', (raw: unknown) => {
        const parsed = FromSandbox.safeParse(raw);
        if (!parsed.success) {
          // Our own build posted it: a mismatch of the two builds, which no argv survives.
          crash = `it posted something that is not its protocol: ${issuesLine(parsed.error)}`;
          this.failAll(new ToolOutputError(`the sandbox's worker ${crash}`));
          void worker.terminate();
          return;
        }
        const message = parsed.data;
        if (message.type === 'started') {
          booted = true;
          if (message.off !== undefined) {
            void worker.terminate();
            resolve({ off: message.off });
          } else {
            worker.unref();
            this.worker = Promise.resolve(worker);
            resolve({ worker });
          }
        } else if (message.type === 'wrapped') this.pending.get(message.id)?.resolve(message.argv);
        else this.pending.get(message.id)?.reject(new Error(message.message));
      });
      worker.on('error', (err) => {
        crash = errorMessage(err);
      });
      worker.on('exit', (code) => {
        if (!booted) resolve({ off: `the sandbox's worker stopped as it started (exit code ${code})${crash ? `: ${crash}` : ''}` });
        void this.worker?.then((w) => {
          if (w === worker) this.worker = undefined;
        });
        this.failAll(new Error(`the sandbox's worker stopped (exit code ${code})${crash ? `: ${crash}` : ''}; the command was not run`));
      });
    });
  }

  private post(worker: Worker, message: ToSandbox): void {
    worker.postMessage(message);
  }

  private failAll(error: Error): void {
    for (const call of [...this.pending.values()]) call.reject(error);
  }
}
