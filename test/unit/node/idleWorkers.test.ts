import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Worker } from 'node:worker_threads';
import { endIdleWorkers, parkIdle, takeIdle } from '../../../src/node/diagnostics/idleWorkers';
import { isLibraryFile } from '../../../src/node/diagnostics/keptLibraries';

/** A stand-in for a worker thread (none is started in this tier): what the pool does with one. */
class FakeWorker extends EventEmitter {
  terminated = false;
  held = true;
  unref(): void {
    this.held = false;
  }
  terminate(): Promise<number> {
    this.terminated = true;
    this.emit('exit', 1);
    return Promise.resolve(1);
  }
}

const fake = () => new FakeWorker();
const asWorker = (w: FakeWorker) => w as unknown as Worker;

describe('idle language workers', () => {
  beforeEach(() => endIdleWorkers());
  after(() => endIdleWorkers());

  it('keeps two idle workers of a kind, holding no process open, and hands out the last kept first', () => {
    const [a, b, c] = [fake(), fake(), fake()];
    assert.equal(parkIdle('ls', asWorker(a)), true);
    assert.equal(parkIdle('ls', asWorker(b)), true);
    assert.equal(parkIdle('ls', asWorker(c)), false, 'a third is refused: its caller ends it');
    assert.equal(a.held || b.held, false);
    assert.equal(takeIdle('syntax'), undefined, 'another kind has none');
    assert.equal(takeIdle('ls'), asWorker(b));
    assert.equal(takeIdle('ls'), asWorker(a));
    assert.equal(takeIdle('ls'), undefined);
  });

  it('forgets a kept worker that ended on its own, and survives its error event', () => {
    const w = fake();
    parkIdle('ls', asWorker(w));
    // With no listener, an error event would throw here.
    w.emit('error', new Error('out of memory'));
    w.emit('exit', 1);
    assert.equal(takeIdle('ls'), undefined);
  });

  it('ends a worker kept unused too long', async () => {
    const w = fake();
    parkIdle('ls', asWorker(w), 20);
    await sleep(60);
    assert.equal(w.terminated, true);
    assert.equal(takeIdle('ls'), undefined);
  });

  it('a worker taken over no longer ends when its idle time would have run out', async () => {
    const w = fake();
    parkIdle('ls', asWorker(w), 20);
    assert.equal(takeIdle('ls'), asWorker(w));
    await sleep(60);
    assert.equal(w.terminated, false);
  });

  it('ends every kept worker when asked', async () => {
    const [a, b] = [fake(), fake()];
    parkIdle('ls', asWorker(a));
    parkIdle('syntax', asWorker(b));
    await endIdleWorkers();
    assert.deepEqual([a.terminated, b.terminated], [true, true]);
    assert.equal(takeIdle('ls'), undefined);
  });

  it('keeps the parsed files of libraries only: node_modules, and anything outside the workspace', () => {
    const root = '/home/dev/shop';
    assert.equal(isLibraryFile('/home/dev/shop/node_modules/@types/node/fs.d.ts', root), true);
    assert.equal(isLibraryFile('/opt/editor/typescript-lib/lib.es2022.d.ts', root), true);
    assert.equal(isLibraryFile('/home/dev/shared/pkg/index.d.ts', root), true, "a linked package's real path");
    assert.equal(isLibraryFile('/home/dev/shop/src/cart.ts', root), false);
    assert.equal(isLibraryFile('/home/dev/shop-old/src/cart.ts', root), true, 'a sibling that shares the prefix is outside');
    assert.equal(isLibraryFile('/home/dev/shop/src/cart.ts', '/home/dev/shop/'), false, 'a root given with its trailing slash');
  });
});
