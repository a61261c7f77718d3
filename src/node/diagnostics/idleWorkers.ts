import type { Worker } from 'node:worker_threads';

/**
 * How long an idle language worker is kept for the next run. Long enough for a user's next
 * ticket, or the next run of a batch; not so long that a window that ran one ticket holds a
 * loaded TypeScript and its libraries' parsed files all afternoon.
 */
const IDLE_MS = 3 * 60_000;
/** Idle workers kept per kind: runs side by side (a batch's jobs) each find one. */
const MAX_PER_KIND = 2;

interface Parked {
  worker: Worker;
  timer: NodeJS.Timeout;
  gone: () => void;
}

const parked = new Map<string, Parked[]>();
const ignore = (): void => undefined;

/**
 * Keeps an idle worker of `kind` (its script and service) for the next caller of that kind;
 * false when enough are kept already, and the caller terminates it. A kept worker holds no
 * process open, and ends after `idleMs` unused (IDLE_MS unless a test says) or when it exits on its own.
 */
export function parkIdle(kind: string, worker: Worker, idleMs = IDLE_MS): boolean {
  const list = parked.get(kind) ?? [];
  if (list.length >= MAX_PER_KIND) return false;
  const entry: Parked = {
    worker,
    timer: setTimeout(() => {
      forget(kind, entry);
      void worker.terminate();
    }, idleMs).unref(),
    gone: () => forget(kind, entry),
  };
  worker.once('exit', entry.gone);
  // An error event with no listener would throw in this thread: a kept worker's error only ends it.
  worker.on('error', ignore);
  worker.unref();
  list.push(entry);
  parked.set(kind, list);
  return true;
}

/** An idle worker of `kind`, taken out of the pool, or undefined. */
export function takeIdle(kind: string): Worker | undefined {
  const entry = parked.get(kind)?.pop();
  return entry && unparked(entry);
}

/** Ends every idle worker (a test that counts threads, or a host shutting down). */
export async function endIdleWorkers(): Promise<void> {
  const all = [...parked.values()].flat();
  parked.clear();
  await Promise.all(all.map((e) => unparked(e).terminate()));
}

/** A kept worker let go of by the pool: no timer, no listener of the pool's left on it. */
function unparked(entry: Parked): Worker {
  clearTimeout(entry.timer);
  entry.worker.off('exit', entry.gone);
  entry.worker.off('error', ignore);
  return entry.worker;
}

function forget(kind: string, entry: Parked): void {
  const list = parked.get(kind);
  if (!list) return;
  const i = list.indexOf(entry);
  if (i >= 0) list.splice(i, 1);
}
