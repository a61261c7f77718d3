import { Worker } from 'node:worker_threads';
import { errorMessage, ToolOutputError } from '../../core/errors';
import { issuesLine } from '../../core/schema/toolOutput';
import { FromSandbox, type SandboxWrapper, type ToSandbox, type WrapConfig } from './sandboxProtocol';

interface Pending {
  resolve: (argv: string[]) => void;
  reject: (err: Error) => void;
}

/**
 * How long a command's end waits for the runtime to drop its mount points. The removal is a few
 * unlinks; past this the run goes on (the side-effect guard knows the runtime's mount points, and
 * the runtime removes them when the process exits).
 */
const CLEANUP_WAIT_MS = 5_000;

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
  /** Cleanups posted and not yet answered, by id. */
  private readonly cleanups = new Map<number, () => void>();
  private calls = 0;

  private constructor(private readonly script: string) {}

  /** The runtime's worker once it started and ran a command, or why it cannot. */
  static async start(script: string): Promise<WorkerManager | { off: string }> {
    const manager = new WorkerManager(script);
    const started = await manager.boot();
    return 'off' in started ? started : manager;
  }

  async wrapWithSandboxArgv(
    line: string,
    shell: string,
    config: WrapConfig,
    signal: AbortSignal,
    cwd: string,
    workspace?: string,
  ): Promise<{ argv: string[] }> {
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
        this.unrefWhenIdle(worker);
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
      this.post(worker, { type: 'wrap', id, line, shell, config, cwd, ...(workspace === undefined ? {} : { workspace }) });
    });
    return { argv };
  }

  /**
   * Posted in order after the wrap it follows; settles once the runtime has dropped its mount
   * points (a side-effect guard or a commit looking at the workspace next finds them gone), when
   * the worker stops, or after CLEANUP_WAIT_MS. A stopped worker keeps nothing to drop.
   */
  async cleanupAfterCommand(): Promise<void> {
    const worker = await this.worker?.catch(() => undefined);
    if (!worker) return;
    const id = ++this.calls;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => this.cleanups.get(id)?.(), CLEANUP_WAIT_MS);
      this.cleanups.set(id, () => {
        clearTimeout(timer);
        this.cleanups.delete(id);
        this.unrefWhenIdle(worker);
        resolve();
      });
      worker.ref();
      this.post(worker, { type: 'afterCommand', id });
    });
  }

  /** The worker holds the process open only while it is asked something. */
  private unrefWhenIdle(worker: Worker): void {
    if (this.pending.size === 0 && this.cleanups.size === 0) worker.unref();
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
        } else if (message.type === 'cleaned') this.cleanups.get(message.id)?.();
        else if (message.type === 'wrapped') this.pending.get(message.id)?.resolve(message.argv);
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
    // Nothing is left to drop: the runtime went with the worker.
    for (const cleaned of [...this.cleanups.values()]) cleaned();
  }
}
