import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { CancelledError, isAbort } from '../../core/errors';
import type { KeptBaselinesPort, KeptMeasure } from '../../core/ports/keptBaselines';
import { pidAlive, thisHost } from './processAlive';
import { storeSecret } from './storeSecret';

/** The folder of baselines kept between runs, when not the workspace's own: a batch's trees share their workspace's. */
export const KEPT_BASELINES_VAR = 'TICKET_RUNNER_KEPT_BASELINES';

export interface KeptBaselineStoreOptions {
  /** The store's folder, beside the run store (`.ticket-runner/baselines`); a batch's trees share their workspace's. */
  dir: string;
  /** The workspace's fingerprint now (src/node/workspace/baselineFingerprint.ts). */
  fingerprint: (signal: AbortSignal) => Promise<string>;
  /** At most this many entries, the least recently used removed first. */
  maxEntries?: number;
  /** At most this many bytes in all. */
  maxBytes?: number;
  /** How long a run waits for another that measures the same workspace before it measures too. */
  waitMs?: number;
}

const DEFAULT_MAX_ENTRIES = 64;
const DEFAULT_MAX_BYTES = 64 * 1024 * 1024;
const DEFAULT_WAIT_MS = 20 * 60_000;
const POLL_MS = 200;
const KEY = /^[0-9a-f]{64}$/;

/** An entry as written: the measurement, and a MAC over it with the store's own key. */
const Entry = z
  .object({ key: z.string(), runId: z.string(), at: z.string(), value: z.unknown(), mac: z.string().regex(/^[0-9a-f]{64}$/) })
  .strict();
const Holder = z.object({ pid: z.number(), host: z.string() }).passthrough();

/**
 * The baselines kept between runs, on disk: one file per key, written aside and renamed into
 * place (a reader sees a whole entry or none), bounded in count and size. Each entry carries a
 * MAC made with a key of the store's own (a file only its owner may read): an entry that does
 * not check (cut short, rewritten, copied under another key) is refused, and the run measures
 * afresh. In the OS sandbox the code under test cannot write the store at all (the run store's
 * folder is read-only there); without it, such code runs as the user and could read that key
 * too, which no check inside the user's account can prevent.
 */
export class KeptBaselineStore implements KeptBaselinesPort {
  private secret: Promise<Buffer | undefined> | undefined;

  constructor(private readonly o: KeptBaselineStoreOptions) {}

  async fingerprint(signal: AbortSignal): Promise<string | undefined> {
    try {
      return await this.o.fingerprint(signal);
    } catch (err) {
      // A tree that changed under the walk, a folder that cannot be read: no key, so nothing is reused.
      if (isAbort(err) || signal.aborted) throw new CancelledError('cancelled before the first write');
      return undefined;
    }
  }

  async recall(key: string): Promise<KeptMeasure | undefined> {
    if (!KEY.test(key)) return undefined;
    const secret = await this.key();
    const text = await readFile(this.file(key), 'utf8').catch(() => undefined);
    if (!secret || text === undefined) return undefined;
    let entry: z.infer<typeof Entry>;
    try {
      const parsed = Entry.safeParse(JSON.parse(text));
      if (!parsed.success) return undefined;
      entry = parsed.data;
    } catch {
      return undefined;
    }
    const { mac, ...kept } = entry;
    const expected = Buffer.from(macOf(secret, kept), 'hex');
    if (entry.key !== key || !timingSafeEqual(expected, Buffer.from(mac, 'hex'))) return undefined;
    // Used now: the bound removes the least recently used first.
    const now = new Date();
    await utimes(this.file(key), now, now).catch(() => undefined);
    return { value: kept.value, runId: kept.runId, at: kept.at };
  }

  async keep(key: string, kept: KeptMeasure): Promise<void> {
    if (!KEY.test(key)) return;
    const secret = await this.key();
    if (!secret) return;
    const body = { key, runId: kept.runId, at: kept.at, value: kept.value };
    const text = JSON.stringify({ ...body, mac: macOf(secret, body) });
    const aside = `${this.file(key)}.${process.pid}.${randomBytes(6).toString('hex')}`;
    try {
      await writeFile(aside, text, { flag: 'wx', mode: 0o600 });
      await rename(aside, this.file(key));
      await this.bound();
    } catch {
      // Not kept: the next run measures again, which is only slower.
      await rm(aside, { force: true });
    }
  }

  async claim(key: string, signal: AbortSignal): Promise<() => Promise<void>> {
    const lock = path.join(this.o.dir, `${KEY.test(key) ? key : 'other'}.lock`);
    const mine = JSON.stringify({ pid: process.pid, host: thisHost(), token: randomBytes(8).toString('hex') });
    const until = Date.now() + (this.o.waitMs ?? DEFAULT_WAIT_MS);
    await mkdir(this.o.dir, { recursive: true }).catch(() => undefined);
    for (;;) {
      if (signal.aborted) throw new CancelledError('cancelled before the first write');
      try {
        await writeFile(lock, mine, { flag: 'wx' });
        return async () => {
          if ((await readFile(lock, 'utf8').catch(() => '')) === mine) await rm(lock, { force: true });
        };
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') return () => Promise.resolve();
      }
      if (await this.stale(lock)) {
        await rm(lock, { force: true });
        continue;
      }
      // Measured too, rather than waited for without end: a run that holds it for this long has stalled.
      if (Date.now() > until) return () => Promise.resolve();
      await sleep(POLL_MS, undefined, { signal }).catch(() => undefined);
    }
  }

  /** A lock whose holder is a process of this machine that is gone; one that cannot be read yet may be mid-write. */
  private async stale(lock: string): Promise<boolean> {
    const text = await readFile(lock, 'utf8').catch(() => undefined);
    if (text === undefined) return false;
    try {
      const h = Holder.parse(JSON.parse(text));
      return h.host === thisHost() && !pidAlive(h.pid);
    } catch {
      const st = await stat(lock).catch(() => undefined);
      return st !== undefined && Date.now() - st.mtimeMs > 10_000;
    }
  }

  private file(key: string): string {
    return path.join(this.o.dir, `${key}.json`);
  }

  /** The store's MAC key, made once with only its owner's permissions. */
  private key(): Promise<Buffer | undefined> {
    this.secret ??= storeSecret(this.o.dir);
    return this.secret;
  }

  /** Removes the least recently used entries beyond the bounds. */
  private async bound(): Promise<void> {
    const names = (await readdir(this.o.dir)).filter((n) => /^[0-9a-f]{64}\.json$/.test(n));
    const entries = (
      await Promise.all(
        names.map(async (name) => {
          const st = await stat(path.join(this.o.dir, name)).catch(() => undefined);
          return st && { name, size: st.size, used: st.mtimeMs };
        }),
      )
    )
      .filter((e) => e !== undefined)
      .sort((a, b) => b.used - a.used);
    const maxEntries = this.o.maxEntries ?? DEFAULT_MAX_ENTRIES;
    const maxBytes = this.o.maxBytes ?? DEFAULT_MAX_BYTES;
    let bytes = 0;
    for (const [n, e] of entries.entries()) {
      bytes += e.size;
      if (n >= maxEntries || bytes > maxBytes) await rm(path.join(this.o.dir, e.name), { force: true });
    }
  }
}

function macOf(secret: Buffer, body: { key: string; runId: string; at: string; value: unknown }): string {
  return createHmac('sha256', secret)
    .update(JSON.stringify([body.key, body.runId, body.at, body.value]))
    .digest('hex');
}
