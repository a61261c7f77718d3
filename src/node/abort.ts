/**
 * Settles with `work`, or rejects with `makeError()` as soon as `signal` aborts. For work that
 * cannot be stopped (it runs in this process): the caller moves on and the work is abandoned.
 */
export function raceAbort<T>(work: Promise<T>, signal: AbortSignal, makeError: () => Error): Promise<T> {
  if (signal.aborted) return Promise.reject(makeError());
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(makeError());
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err instanceof Error ? err : new Error(String(err)));
      },
    );
  });
}
