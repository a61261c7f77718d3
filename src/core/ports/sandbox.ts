/**
 * Whether the processes a run starts (tests, tools, gates) run in the OS sandbox. The core
 * only records it: `run.started` carries it, and every view says `sandbox: off (reason)`.
 */
export interface SandboxStatus {
  on: boolean;
  /** The mechanism when on (bubblewrap, sandbox-exec), why not when off. */
  detail: string;
}
