/** Time and identity, injected so runs are reproducible in tests. */
export interface ClockPort {
  now(): Date;
  /** A new run id: sortable by time, unique. */
  newRunId(): string;
}

/** A content hash (sha-256 hex in the Node adapter). Injected: the core has no crypto. */
export type HashFn = (content: string) => string;
