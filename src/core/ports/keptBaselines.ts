/** A measurement of the project kept by an earlier run, and which run took it. */
export interface KeptMeasure {
  value: unknown;
  runId: string;
  /** When it was measured (ISO time). */
  at: string;
}

/**
 * The baselines kept between runs (src/node/store/keptBaselineStore.ts). A run measures the
 * project before its first write (its type errors, its own tests); a later run on the same
 * project takes the measurement again only when something it could read changed. The key
 * must cover all of that, since a stale baseline would forgive a regression: `fingerprint`
 * digests the workspace's files, what is installed, the tools' versions and the tests'
 * environment, and the core adds what it asked.
 */
export interface KeptBaselinesPort {
  /** Everything a baseline could read, as one digest; undefined when it cannot be taken (the run measures afresh). */
  fingerprint(signal: AbortSignal): Promise<string | undefined>;
  /** What was kept under `key`, when its integrity check passes; undefined otherwise. */
  recall(key: string): Promise<KeptMeasure | undefined>;
  /** Keeps a measurement under `key`, whole or not at all. */
  keep(key: string, kept: KeptMeasure): Promise<void>;
  /**
   * Waits while another run measures under `key` (two runs on one commit measure once), then
   * holds it: the returned function lets it go.
   */
  claim(key: string, signal: AbortSignal): Promise<() => Promise<void>>;
}
