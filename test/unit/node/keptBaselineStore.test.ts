import assert from 'node:assert/strict';
import { readdirSync, readFileSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { KeptBaselineStore } from '../../../src/node/store/keptBaselineStore';

/**
 * The store of baselines kept between runs: an entry is believed only whole and as this store
 * wrote it under its key; it is bounded; and runs on one workspace state measure one at a time.
 */

const KEY = 'a'.repeat(64);
const OTHER = 'b'.repeat(64);
const kept = { value: { failing: ['test/a.test.js › one'] }, runId: 'run-1', at: '2026-12-07T07:00:00.000Z' };

describe('pure: the store of kept baselines', () => {
  let dir: string;
  let store: KeptBaselineStore;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'tr-kept-'));
    store = new KeptBaselineStore({ dir, fingerprint: () => Promise.resolve(KEY) });
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('gives back what it kept, under its key only', async () => {
    assert.equal(await store.recall(KEY), undefined);
    await store.keep(KEY, kept);
    assert.deepEqual(await store.recall(KEY), kept);
    assert.equal(await store.recall(OTHER), undefined);
    assert.equal(statSync(path.join(dir, 'key')).mode & 0o077, 0, 'its MAC key is readable by its owner only');
  });

  it('refuses an entry rewritten on disk (a failing case dropped, so it would not be forgiven... or added, so it would)', async () => {
    await store.keep(KEY, kept);
    const file = path.join(dir, `${KEY}.json`);
    const entry = JSON.parse(readFileSync(file, 'utf8')) as { value: { failing: string[] } };
    entry.value.failing.push('test/a.test.js › two');
    writeFileSync(file, JSON.stringify(entry));
    assert.equal(await store.recall(KEY), undefined);
  });

  it("refuses an entry copied under another key, one cut short, and one with its MAC made again without the store's key", async () => {
    await store.keep(KEY, kept);
    const text = readFileSync(path.join(dir, `${KEY}.json`), 'utf8');
    writeFileSync(path.join(dir, `${OTHER}.json`), text);
    assert.equal(await store.recall(OTHER), undefined, 'copied under another key');
    writeFileSync(path.join(dir, `${KEY}.json`), text.slice(0, text.length / 2));
    assert.equal(await store.recall(KEY), undefined, 'cut short');
    const { createHmac } = await import('node:crypto');
    const forged = { key: KEY, runId: 'run-x', at: kept.at, value: { failing: ['everything'] } };
    const mac = createHmac('sha256', Buffer.alloc(32))
      .update(JSON.stringify([forged.key, forged.runId, forged.at, forged.value]))
      .digest('hex');
    writeFileSync(path.join(dir, `${KEY}.json`), JSON.stringify({ ...forged, mac }));
    assert.equal(await store.recall(KEY), undefined, 'MAC made with another key');
  });

  it('keeps at most its bound, the least recently used removed first', async () => {
    const small = new KeptBaselineStore({ dir, fingerprint: () => Promise.resolve(KEY), maxEntries: 2 });
    const keys = ['1', '2', '3'].map((c) => c.repeat(64));
    await small.keep(keys[0]!, kept);
    await new Promise((r) => setTimeout(r, 20));
    await small.keep(keys[1]!, kept);
    await new Promise((r) => setTimeout(r, 20));
    assert.ok(await small.recall(keys[0]!), 'used again: now the most recent');
    await new Promise((r) => setTimeout(r, 20));
    await small.keep(keys[2]!, kept);
    assert.deepEqual(
      readdirSync(dir)
        .filter((n) => n.endsWith('.json'))
        .sort(),
      [`${keys[0]}.json`, `${keys[2]}.json`],
    );
  });

  it('a second claim on one key waits until the first is let go; a claim of a dead process is taken over', async () => {
    const signal = new AbortController().signal;
    const release = await store.claim(KEY, signal);
    let second = false;
    const waiting = store.claim(KEY, signal).then((r) => ((second = true), r));
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(second, false, 'the second waits');
    await release();
    await (
      await waiting
    )();
    assert.equal(second, true);
    // A lock left by a process that is gone.
    writeFileSync(path.join(dir, `${KEY}.lock`), JSON.stringify({ pid: 2 ** 22 + 12345, host: (await import('node:os')).hostname() }));
    const t = Date.now();
    await (
      await store.claim(KEY, signal)
    )();
    assert.ok(Date.now() - t < 1000, 'taken over at once');
  });

  it('a claim that waits is cancelled with its run', async () => {
    const release = await store.claim(KEY, new AbortController().signal);
    const controller = new AbortController();
    const waiting = store.claim(KEY, controller.signal);
    controller.abort();
    await assert.rejects(waiting, /cancelled/);
    await release();
  });

  it('no fingerprint, when the workspace cannot be walked whole: undefined, so the run measures afresh', async () => {
    const failing = new KeptBaselineStore({ dir, fingerprint: () => Promise.reject(new Error('ENOENT: a file went away')) });
    assert.equal(await failing.fingerprint(new AbortController().signal), undefined);
  });
});
