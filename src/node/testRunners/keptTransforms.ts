import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { z } from 'zod';
import { storeSecret } from '../store/storeSecret';

/**
 * What the kept cache may hold in all, as the kept baselines may; a run whose cache is larger
 * keeps nothing, and the next one starts afresh. A warm-up compiles at most 500 files in two
 * variants, and an entry is about seven times its source (its map holds the source too).
 */
const DEFAULT_MAX_BYTES = 64 * 1024 * 1024;
/** tsx's cache folder in its temp folder (`tsx-<uid>`), and an entry's name in it: `<time bucket>-<key>`. */
const CACHE_FOLDER = /^tsx-\d+$/;
const ENTRY = /^(\d+)-([0-9a-f]{16,64})$/;
const SHA256 = /^[0-9a-f]{64}$/;

const Index = z
  .object({
    /** The tsx, node and folder the entries were compiled for: any other and nothing is restored. */
    tag: z.string(),
    /** Each entry, by its folder and its key without tsx's time bucket, with the digest of its bytes. */
    entries: z.record(z.string().regex(/^tsx-\d+\/[0-9a-f]{16,64}$/), z.string().regex(SHA256)),
    /** What the entries hold: TrustedTransforms' record of what was compiled, from which bytes. */
    compiled: z.array(z.string()),
    mac: z.string().regex(SHA256),
  })
  .strict();

export interface KeptTransformsOptions {
  /** The store's folder, beside the run store (`.ticket-runner/transforms`). */
  dir: string;
  maxBytes?: number;
}

/** A restored cache: what TrustedTransforms records as compiled. */
export type Compiled = ReadonlySet<string>;

/**
 * tsx's cache of compiled TypeScript kept between runs, so that a run on code an earlier run
 * compiled starts no warm-up for it. Only the run's own warm-up wrote the entries (in the
 * sandbox, which keeps the workspace's packages, tsx among them, as installed), and tsx keys
 * each by the bytes and path it compiled, with its options: an entry can only ever be found by
 * the file it was compiled from. What could still go wrong is a rewritten entry, so the index
 * carries a MAC made with the store's own key (a file only its owner may read) and each entry's
 * digest: one that does not check and nothing is restored. Code under test cannot write the
 * store in the sandbox (the run store's folder is read-only there), and without the sandbox
 * nothing is kept or restored (TrustedTransforms exists only with it).
 */
export class KeptTransforms {
  private secret: Promise<Buffer | undefined> | undefined;

  constructor(private readonly o: KeptTransformsOptions) {}

  /**
   * Copies the kept entries into `seed` (tsx's temp folder for the run), each in tsx's time
   * bucket of now, and gives what they hold; nothing when the index or an entry does not check.
   */
  async restore(seed: string, tag: string): Promise<Compiled> {
    const none: Compiled = new Set();
    try {
      const secret = await this.key();
      const text = await readFile(this.index(), 'utf8').catch(() => undefined);
      if (!secret || text === undefined) return none;
      const parsed = Index.safeParse(JSON.parse(text));
      if (!parsed.success || parsed.data.tag !== tag) return none;
      const { mac, ...body } = parsed.data;
      if (!timingSafeEqual(Buffer.from(macOf(secret, body), 'hex'), Buffer.from(mac, 'hex'))) return none;
      const bucket = String(timeBucket());
      const written: string[] = [];
      for (const [name, digest] of Object.entries(body.entries)) {
        const bytes = await readFile(path.join(this.o.dir, 'entries', digest));
        if (sha256(bytes) !== digest) {
          await Promise.all(written.map((f) => rm(f, { force: true })));
          return none;
        }
        const [folder, key] = name.split('/') as [string, string];
        await mkdir(path.join(seed, folder), { recursive: true });
        const file = path.join(seed, folder, `${bucket}-${key}`);
        await writeFile(file, bytes);
        written.push(file);
      }
      return new Set(body.compiled);
    } catch {
      return none;
    }
  }

  /** Keeps the entries of `seed` and what they hold, in place of what was kept; nothing past the bound. */
  async keep(seed: string, tag: string, compiled: Compiled): Promise<void> {
    try {
      const secret = await this.key();
      if (!secret) return;
      const entries: Record<string, string> = {};
      let bytes = 0;
      const entriesDir = path.join(this.o.dir, 'entries');
      await mkdir(entriesDir, { recursive: true });
      for (const folder of (await readdir(seed)).filter((f) => CACHE_FOLDER.test(f))) {
        for (const name of await readdir(path.join(seed, folder))) {
          const key = ENTRY.exec(name)?.[2];
          if (!key) continue;
          const content = await readFile(path.join(seed, folder, name));
          bytes += content.length;
          if (bytes > (this.o.maxBytes ?? DEFAULT_MAX_BYTES)) return this.forget();
          const digest = sha256(content);
          entries[`${folder}/${key}`] = digest;
          const file = path.join(entriesDir, digest);
          if (!(await stat(file).catch(() => undefined))) await writeAside(file, content);
        }
      }
      const body = { tag, entries, compiled: [...compiled] };
      await writeAside(this.index(), JSON.stringify({ ...body, mac: macOf(secret, body) }));
      // What no index names any more: a kept file's name is its digest, so one another run kept at once may go too (it is only compiled again).
      const named = new Set(Object.values(entries));
      for (const f of await readdir(entriesDir)) if (SHA256.test(f) && !named.has(f)) await rm(path.join(entriesDir, f), { force: true });
    } catch {
      // Not kept: the next run compiles again, which is only slower.
    }
  }

  private async forget(): Promise<void> {
    await rm(this.index(), { force: true });
    await rm(path.join(this.o.dir, 'entries'), { recursive: true, force: true });
  }

  private index(): string {
    return path.join(this.o.dir, 'index.json');
  }

  /** The store's MAC key, made once with only its owner's permissions. */
  private key(): Promise<Buffer | undefined> {
    this.secret ??= storeSecret(this.o.dir);
    return this.secret;
  }
}

/** tsx's time bucket for an entry's name: it looks for an entry in the last few buckets only. */
const timeBucket = (): number => Math.floor(Date.now() / 1e8);

const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

function macOf(secret: Buffer, body: { tag: string; entries: Record<string, string>; compiled: readonly string[] }): string {
  return createHmac('sha256', secret)
    .update(JSON.stringify([body.tag, body.entries, body.compiled]))
    .digest('hex');
}

/** Written aside and renamed into place: a reader sees the whole file or the one before. */
async function writeAside(file: string, content: string | Buffer): Promise<void> {
  const aside = `${file}.${process.pid}.${randomBytes(6).toString('hex')}`;
  try {
    await writeFile(aside, content, { flag: 'wx', mode: 0o600 });
    await rename(aside, file);
  } finally {
    await rm(aside, { force: true });
  }
}
