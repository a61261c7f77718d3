/**
 * Ownership of what the extension creates (listeners, watchers, emitters, panels, timers), in
 * the way VS Code's own code does it: an owner registers each thing it creates with
 * `_register`, and disposing the owner disposes all of it, once, newest first. No vscode import:
 * anything with `dispose()` qualifies, and the unit tests run without an editor.
 */
export interface IDisposable {
  dispose(): void;
}

/** A disposable that runs `fn` once (a timer to clear, an abort listener to remove). */
export function toDisposable(fn: () => void): IDisposable {
  let done = false;
  return {
    dispose: () => {
      if (done) return;
      done = true;
      fn();
    },
  };
}

/** Disposes every item, all of them even when one throws; the first error is thrown after. */
function disposeAll(items: readonly IDisposable[]): void {
  const errors: unknown[] = [];
  for (const d of items) {
    try {
      d.dispose();
    } catch (err) {
      errors.push(err);
    }
  }
  if (errors.length === 1) throw errors[0];
  if (errors.length > 1) throw new AggregateError(errors, `${errors.length} disposables failed to dispose`);
}

/** A group of disposables disposed together, once. One added after that is disposed at once. */
export class DisposableStore implements IDisposable {
  private readonly items = new Set<IDisposable>();
  private disposed = false;

  get isDisposed(): boolean {
    return this.disposed;
  }

  add<T extends IDisposable>(item: T): T {
    if (this.disposed) item.dispose();
    else this.items.add(item);
    return item;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    const items = [...this.items].reverse();
    this.items.clear();
    disposeAll(items);
  }
}

/** Disposables by key (a panel per run, a watcher per folder): replacing or deleting a value disposes it. */
export class DisposableMap<K, V extends IDisposable> implements IDisposable {
  private readonly map = new Map<K, V>();
  private disposed = false;

  get(key: K): V | undefined {
    return this.map.get(key);
  }

  set(key: K, value: V): void {
    if (this.disposed) {
      value.dispose();
      return;
    }
    const old = this.map.get(key);
    this.map.set(key, value);
    if (old && old !== value) old.dispose();
  }

  deleteAndDispose(key: K): void {
    const value = this.map.get(key);
    this.map.delete(key);
    value?.dispose();
  }

  /** Removes a value that disposed itself, without disposing it again. */
  deleteAndLeak(key: K): V | undefined {
    const value = this.map.get(key);
    this.map.delete(key);
    return value;
  }

  values(): IterableIterator<V> {
    return this.map.values();
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    const values = [...this.map.values()].reverse();
    this.map.clear();
    disposeAll(values);
  }
}

/** The base of every owner in src/vscode: what it registers lives exactly as long as it does. */
export abstract class Disposable implements IDisposable {
  protected readonly _store = new DisposableStore();

  protected get isDisposed(): boolean {
    return this._store.isDisposed;
  }

  protected _register<T extends IDisposable>(item: T): T {
    if ((item as unknown) === this) throw new Error('a disposable cannot register itself');
    return this._store.add(item);
  }

  dispose(): void {
    this._store.dispose();
  }
}
