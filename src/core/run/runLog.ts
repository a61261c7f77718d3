import { RunEvent, type NewEvent } from '../schema/events';
import type { ClockPort } from '../ports/clock';
import type { RunStorePort } from '../ports/runStore';
import { redactStrings } from './redactStrings';

export type RunEventListener = (event: RunEvent) => void;

/**
 * The events after which the log is flushed to disk: the ends of steps and attempts, which a
 * resumed run starts after (src/core/loop/resumeRun.ts). A power loss keeps them.
 */
const BOUNDARIES: ReadonlySet<RunEvent['type']> = new Set([
  'run.started',
  'run.resumed',
  'tests.materialized',
  'ops.checked',
  'coder.attempted',
  'tests.ran',
  'router.routed',
  'correction.requested',
  'gate.ran',
  'run.finished',
  'run.rolledBack',
]);

/**
 * The writer of one run's log. It stamps runId, seq and ts, validates every event before
 * it is written (a bad event is a bug, never a corrupt log), and tells subscribers after.
 * Subscribers (progress, tree view, webview) observe; they never change the run.
 */
export class RunLog {
  private seq: number;
  private readonly listeners = new Set<RunEventListener>();
  private readonly written: RunEvent[];
  /** Appends are serialized so seq order is file order even when callers do not await. */
  private tail: Promise<void> = Promise.resolve();

  constructor(
    readonly runId: string,
    private readonly store: RunStorePort,
    private readonly clock: ClockPort,
    existing: readonly RunEvent[] = [],
    /** Scrubs secret values from every string of an event before it is kept, written or shown. */
    private readonly redact?: (text: string) => string,
  ) {
    this.written = [...existing];
    this.seq = existing.length === 0 ? 0 : existing[existing.length - 1]!.seq + 1;
  }

  get events(): readonly RunEvent[] {
    return this.written;
  }

  onEvent(listener: RunEventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async emit(event: NewEvent): Promise<RunEvent> {
    const clean = this.redact ? redactStrings(event, this.redact) : event;
    const stamped = RunEvent.parse({ ...clean, runId: this.runId, seq: this.seq++, ts: this.clock.now().toISOString() });
    const write = this.tail.then(async () => {
      await this.store.append(this.runId, stamped);
      if (BOUNDARIES.has(stamped.type)) await this.store.flush?.(this.runId);
    });
    this.tail = write.catch(() => undefined);
    await write;
    this.written.push(stamped);
    for (const l of this.listeners) {
      try {
        l(stamped);
      } catch {
        // A broken view must not break the run it watches.
      }
    }
    return stamped;
  }

  /**
   * Whether the store holds exactly the events this log wrote: the run's own record, checked
   * by the oracle guard. A store that keeps nothing (rung 4's scratch checks) has nothing to hold.
   */
  async matchesStore(): Promise<boolean> {
    if (this.store.ephemeral) return true;
    await this.tail;
    const onDisk = await this.store.load(this.runId).catch(() => null);
    const mine = this.written;
    return (
      onDisk !== null &&
      onDisk.torn === null &&
      onDisk.events.length === mine.length &&
      onDisk.events.every((e, i) => JSON.stringify(e) === JSON.stringify(mine[i]))
    );
  }

  /** Where the store keeps this log. */
  get path(): string {
    return this.store.logPath(this.runId);
  }

  /** Keeps file content as it is (rollback must restore it byte for byte). */
  putBlob(content: string): Promise<string> {
    return this.store.putBlob(this.runId, content);
  }

  /** Keeps a record (a prompt, a model's answer) scrubbed of secrets, as events are. */
  putRecord(content: string): Promise<string> {
    return this.store.putBlob(this.runId, this.redact ? this.redact(content) : content);
  }

  getBlob(hash: string): Promise<string> {
    return this.store.getBlob(this.runId, hash);
  }
}
