import { performance } from 'node:perf_hooks';

/** The median: one slow outlier on a shared machine must not decide a figure. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Rounds for the report: milliseconds and ratios keep a readable number of digits. */
export const round = (n: number, digits = 1): number => Math.round(n * 10 ** digits) / 10 ** digits;

export async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const t = performance.now();
  const value = await work();
  return { ms: performance.now() - t, value };
}

/** Wall time and calls per `port.method`, for the pipeline profile. */
export type PortTimes = Map<string, { ms: number; calls: number }>;

/**
 * Wraps every method of a port so its wall time is added to `times` under `name.method`.
 * The pipeline awaits its ports one at a time, so the sums do not overlap and what is left
 * of the run's wall time is the core's own work.
 */
export function timePort<T extends object>(name: string, port: T, times: PortTimes): T {
  const add = (key: string, ms: number) => {
    const entry = times.get(key) ?? { ms: 0, calls: 0 };
    entry.ms += ms;
    entry.calls++;
    times.set(key, entry);
  };
  return new Proxy(port, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function' || typeof prop !== 'string') return value;
      return (...args: unknown[]) => {
        const t = performance.now();
        const result: unknown = (value as (...a: unknown[]) => unknown).apply(target, args);
        if (result instanceof Promise) return result.finally(() => add(`${name}.${prop}`, performance.now() - t));
        add(`${name}.${prop}`, performance.now() - t);
        return result;
      };
    },
  });
}
