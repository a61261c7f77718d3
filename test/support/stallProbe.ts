import { performance } from 'node:perf_hooks';

/** The probe's period: a stall shorter than this is not seen, and none that long is missed. */
export const TICK_MS = 5;

export interface Stall {
  ms: number;
  /** What the caller's label said when the stall ended (the last run event, say). */
  during: string;
}

/**
 * A drift probe on this thread's event loop: a timer every TICK_MS, and each late arrival is a
 * stall of its lateness. It reads the clock on the thread it measures, so it sees exactly what
 * that thread could not answer. `stop` returns the stalls, longest first.
 */
export function stallProbe(label: () => string = () => ''): { stop: () => Stall[] } {
  const stalls: Stall[] = [];
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    const late = now - last - TICK_MS;
    last = now;
    if (late > TICK_MS) stalls.push({ ms: Math.round(late * 10) / 10, during: label() });
  }, TICK_MS);
  return {
    stop: () => {
      clearInterval(timer);
      return [...stalls].sort((a, b) => b.ms - a.ms);
    },
  };
}
