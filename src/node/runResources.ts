import type { PipelineDeps } from '../core/stages/common/context';
import type { ProcessJail } from './sandbox/processJail';
import { acquireWorkspaceLock } from './store/workspaceLock';

/**
 * A run's dependencies as `wireNodeDeps` builds them, with the process jail every process of the
 * run goes through. The jail is a field so that it goes wherever the deps go: a copy made with a
 * spread (a test leaving a check out) still carries it to `disposeDeps`.
 */
export interface WiredDeps extends PipelineDeps {
  readonly jail: ProcessJail;
  /** The worker thread behind `parser` (the parser port has no dispose of its own). */
  readonly parserWorker?: { dispose(): void };
}

/**
 * Releases what a run's dependencies hold (the language services' worker threads, the lint worker) once the
 * command is done, and kills every process of the run still alive (a detached grandchild).
 */
export async function disposeDeps(deps: WiredDeps): Promise<void> {
  deps.diagnostics?.dispose?.();
  deps.parserWorker?.dispose();
  deps.ops?.dispose?.();
  deps.lint?.dispose?.();
  await deps.tests.dispose?.();
  deps.gates?.typecheck?.dispose?.();
  await deps.candidates?.dispose?.();
  await deps.jail.dispose();
}

export interface RunResourceOptions<D extends WiredDeps> {
  workspaceRoot: string;
  /** Who holds the lock, as a second run on the workspace is told ("ticket-runner run .tickets/BLOG-1.ticket.json"). */
  holder: string;
  /** Told when a stale lock is taken over. */
  warn: (message: string) => void;
  /** Builds the run's dependencies; called once the lock is held, so a locked workspace costs no wiring. */
  wire: () => Promise<D>;
  /** Where a failure to release the dependencies goes; without it, it is thrown after the body's end. */
  onReleaseError?: (err: unknown) => void;
}

/**
 * The one way a command (the CLI's, the editor's, a test's) gets a run's resources: the
 * workspace lock, then the wiring, then `body`; whatever way `body` ends (a result, an error,
 * a cancel), the dependencies are disposed and the lock released, in that order.
 */
export async function withRunResources<D extends WiredDeps, T>(o: RunResourceOptions<D>, body: (deps: D) => Promise<T>): Promise<T> {
  const lock = acquireWorkspaceLock(o.workspaceRoot, o.holder, o.warn);
  try {
    const deps = await o.wire();
    try {
      return await body(deps);
    } finally {
      const released = disposeDeps(deps);
      await (o.onReleaseError ? released.catch(o.onReleaseError) : released);
    }
  } finally {
    lock.release();
  }
}
