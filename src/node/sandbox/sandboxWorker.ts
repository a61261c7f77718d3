/**
 * The sandbox runtime's worker thread, built to `dist/sandboxWorker.js` and started by
 * `WorkerManager` (`sandboxThread.ts`): the runtime's start (its tool lookups and its probe of
 * bubblewrap) and every wrap (the shell's lookup, the walk of the policy's paths) wait on child
 * processes synchronously, and here they hold only this thread. It loads and checks the runtime
 * as `bootRuntime` does, says whether it started, then wraps each command as the runtime does.
 */
import { parentPort } from 'node:worker_threads';
import { errorMessage } from '../../core/errors';
import { issuesLine } from '../../core/schema/toolOutput';
import { bootRuntime } from './osSandbox';
import { ToSandbox, type FromSandbox } from './sandboxProtocol';

const port = parentPort;
if (!port) throw new Error('the sandbox worker runs as a worker thread (node:worker_threads)');

const post = (message: FromSandbox) => port.postMessage(message);

void bootRuntime().then((manager) => {
  if ('off' in manager) {
    post({ type: 'started', off: manager.off });
    return;
  }
  const aborts = new Map<number, AbortController>();
  port.on('message', (raw: unknown) => {
    const parsed = ToSandbox.safeParse(raw);
    if (!parsed.success) throw new Error(`the sandbox worker was sent something that is not its protocol: ${issuesLine(parsed.error)}`);
    const message = parsed.data;
    if (message.type === 'afterCommand') {
      // Answered even when the runtime threw: the caller only waits to look at the workspace.
      void Promise.resolve()
        .then(() => manager.cleanupAfterCommand())
        .catch(() => undefined)
        .then(() => post({ type: 'cleaned', id: message.id }));
    } else if (message.type === 'cancel') aborts.get(message.id)?.abort();
    else {
      const abort = new AbortController();
      aborts.set(message.id, abort);
      manager
        .wrapWithSandboxArgv(message.line, message.shell, message.config, abort.signal, message.cwd, message.workspace)
        .then(
          ({ argv }) => post({ type: 'wrapped', id: message.id, argv }),
          (err: unknown) => post({ type: 'failed', id: message.id, message: errorMessage(err) }),
        )
        .finally(() => aborts.delete(message.id));
    }
  });
  post({ type: 'started' });
});
