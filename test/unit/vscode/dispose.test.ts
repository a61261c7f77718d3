import { strict as assert } from 'node:assert';
import { Disposable, DisposableMap, DisposableStore, toDisposable } from '../../../src/vscode/dispose';

/** A disposable that counts its disposals. */
const counted = (log: string[], name: string) => ({ dispose: () => void log.push(name) });

class Owner extends Disposable {
  constructor(log: string[]) {
    super();
    this._register(counted(log, 'first'));
    this._register(counted(log, 'second'));
  }
  own<T extends { dispose(): void }>(t: T): T {
    return this._register(t);
  }
}

describe('ownership of disposables (the _register pattern)', () => {
  it('disposes what an owner registered once, newest first, however often it is disposed', () => {
    const log: string[] = [];
    const owner = new Owner(log);
    owner.dispose();
    owner.dispose();
    assert.deepEqual(log, ['second', 'first']);
  });

  it('disposes at once what is registered after its owner was disposed', () => {
    const log: string[] = [];
    const owner = new Owner(log);
    owner.dispose();
    owner.own(counted(log, 'late'));
    assert.deepEqual(log, ['second', 'first', 'late']);
  });

  it('refuses an owner registered with itself', () => {
    const owner = new Owner([]);
    assert.throws(() => owner.own(owner), /cannot register itself/);
  });

  it('disposes every item even when one throws, then throws', () => {
    const log: string[] = [];
    const store = new DisposableStore();
    store.add(counted(log, 'a'));
    store.add({
      dispose: () => {
        throw new Error('broken');
      },
    });
    store.add(counted(log, 'c'));
    assert.throws(() => store.dispose(), /broken/);
    assert.deepEqual(log, ['c', 'a']);
  });

  it('toDisposable runs its function once', () => {
    let n = 0;
    const d = toDisposable(() => n++);
    d.dispose();
    d.dispose();
    assert.equal(n, 1);
  });

  it('a map disposes the value it replaces or deletes, and forgets a value that disposed itself without disposing it again', () => {
    const log: string[] = [];
    const map = new DisposableMap<string, { dispose(): void }>();
    map.set('run-1', counted(log, 'old'));
    map.set('run-1', counted(log, 'new'));
    assert.deepEqual(log, ['old']);
    map.deleteAndDispose('run-1');
    assert.deepEqual(log, ['old', 'new']);
    map.set('run-2', counted(log, 'closed by the user'));
    map.deleteAndLeak('run-2');
    map.set('run-3', counted(log, 'open'));
    map.dispose();
    assert.deepEqual(log, ['old', 'new', 'open']);
    map.set('run-4', counted(log, 'after'));
    assert.deepEqual(log, ['old', 'new', 'open', 'after']);
  });
});
