import type { RunEvent } from '../schema/events';

export interface TornLine {
  line: number;
  text: string;
  error: string;
}

export interface LoadedLog {
  events: RunEvent[];
  /** A last line cut short by a crash mid-write, reported rather than fatal. */
  torn: TornLine | null;
}

/**
 * Where runs live: `.ticket-runner/runs/<runId>/events.jsonl` and a blob store of file
 * contents by hash beside it. Append-only: nothing ever rewrites a line.
 */
export interface RunStorePort {
  /** Keeps nothing on disk (rung 4's scratch checks): there is no record to verify. */
  readonly ephemeral?: boolean;
  append(runId: string, event: RunEvent): Promise<void>;
  /** Makes what was appended durable (fsync): the run log calls it at each attempt boundary. */
  flush?(runId: string): Promise<void>;
  load(runId: string): Promise<LoadedLog>;
  putBlob(runId: string, content: string): Promise<string>;
  getBlob(runId: string, hash: string): Promise<string>;
  listRuns(): Promise<string[]>;
  deleteRun(runId: string): Promise<void>;
  /** Where the log is, for "reveal log" and error messages. */
  logPath(runId: string): string;
}
