/**
 * The batch's model calls, seen from the parent: every child asks before each call and says
 * what the call cost after it. Two limits hold across all the batch's processes:
 *
 * - at most `maxConcurrent` calls in flight per API key (the children of a batch share a key,
 *   and a provider's rate limit is per key), so that a wide batch does not meet 429s at all;
 *   the SDK's retry with backoff stays behind it for limits this process cannot see;
 * - the batch's dollar cap: no call starts once the spent total reaches it. A call starts at
 *   once only when the spent total, plus the most every call in flight can still cost, plus
 *   the most this one can cost, stays within the cap; otherwise it waits until no other call
 *   is in flight, so the cap is passed by one call at most, never by one per running ticket.
 */

export interface PermitLimits {
  /** Calls in flight per API key; undefined: no cap beyond the batch's parallelism. */
  maxConcurrent?: number;
  /** Dollars over the whole batch. */
  maxDollars?: number;
}

/** Why a call may not start: the batch's dollars are spent. */
export interface Refusal {
  limitUsd: number;
  spentUsd: number;
}

interface Waiter {
  key: string;
  /** The most the call can cost; null when its provider cannot say (it then runs alone near the cap). */
  maxCostUsd: number | null;
  grant: () => void;
  refuse: (r: Refusal) => void;
}

export class CallPermits {
  private spent = 0;
  private readonly inFlight = new Map<number, { key: string; maxCostUsd: number | null }>();
  private readonly waiting: Waiter[] = [];
  private nextId = 1;

  constructor(private readonly limits: PermitLimits) {}

  /** Dollars reported by calls that ended. */
  get spentUsd(): number {
    return this.spent;
  }

  /** The dollar cap is reached: no new call starts, and so no new ticket. */
  get exhausted(): boolean {
    return this.limits.maxDollars !== undefined && this.spent >= this.limits.maxDollars;
  }

  /** The most calls in flight at once, per key, so far: what the cap held. */
  readonly peak = new Map<string, number>();

  /**
   * Asks for a call; `grant` gets the permit's id (hand it back to `release`), `refuse` says the
   * dollars are spent. One of the two is called exactly once, now or when a call ends.
   */
  acquire(key: string, maxCostUsd: number | null, grant: (permit: number) => void, refuse: (r: Refusal) => void): void {
    const w: Waiter = { key, maxCostUsd, grant: () => grant(this.start(w)), refuse };
    this.waiting.push(w);
    this.pump();
  }

  /** A call ended (answered, failed or cancelled) having cost `costUsd`. */
  release(permit: number, costUsd: number): void {
    if (!this.inFlight.delete(permit)) return;
    this.spent += Number.isFinite(costUsd) && costUsd > 0 ? costUsd : 0;
    this.pump();
  }

  /** Refuses every waiting call: the batch is over (cancelled, or its children are gone). */
  close(): void {
    for (const w of this.waiting.splice(0)) w.refuse({ limitUsd: this.limits.maxDollars ?? 0, spentUsd: this.spent });
  }

  private start(w: Waiter): number {
    const id = this.nextId++;
    this.inFlight.set(id, { key: w.key, maxCostUsd: w.maxCostUsd });
    const n = this.countFor(w.key);
    if (n > (this.peak.get(w.key) ?? 0)) this.peak.set(w.key, n);
    return id;
  }

  private countFor(key: string): number {
    let n = 0;
    for (const c of this.inFlight.values()) if (c.key === key) n++;
    return n;
  }

  /** Grants, in order of asking, every waiting call the limits allow now. */
  private pump(): void {
    for (let i = 0; i < this.waiting.length;) {
      const w = this.waiting[i]!;
      if (this.exhausted) {
        this.waiting.splice(i, 1);
        w.refuse({ limitUsd: this.limits.maxDollars!, spentUsd: this.spent });
        continue;
      }
      if (this.limits.maxConcurrent !== undefined && this.countFor(w.key) >= this.limits.maxConcurrent) {
        i++;
        continue;
      }
      // A call the dollars hold back waits for the calls in flight to end, and nobody
      // passes it meanwhile: otherwise it could wait for ever behind smaller calls.
      if (!this.dollarsAllow(w)) break;
      this.waiting.splice(i, 1);
      w.grant();
    }
  }

  private dollarsAllow(w: Waiter): boolean {
    const cap = this.limits.maxDollars;
    if (cap === undefined || this.inFlight.size === 0) return true;
    let reserved = w.maxCostUsd ?? Infinity;
    for (const c of this.inFlight.values()) reserved += c.maxCostUsd ?? Infinity;
    return this.spent + reserved <= cap;
  }
}
