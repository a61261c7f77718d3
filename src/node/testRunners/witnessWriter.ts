// The writing half of a witness, mocha's (mochaWitness.ts) and node:test's (nodeTestWitness.ts),
// run by the frozen preload in a test's process before the code under test loads. Everything it
// calls once the code has loaded is taken here first: the code may replace any of it, and a
// `writeSync` looked up on node:fs at each call would hand each line, key and all, to whatever
// the code put there, which could then write passes of its own behind the key.
import { openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { WITNESS_KEY_VAR } from './witnessRecord';

type Fn = (this: unknown, ...args: unknown[]) => unknown;

/** Where a function takes its `done` callback: mocha's first argument, node:test's second (after the test's context). */
export type DoneAt = 0 | 1;

export interface Witness {
  /** Appends one line to the record, behind the key (a WitnessLine). */
  write: (line: string) => void;
  /** `fn`, wrapped to write how each of its runs ends, as `ran` under `id`. */
  recorded: (id: number | string, fn: Fn, doneAt: DoneAt | undefined) => Fn;
}

/** The key, from the file the runner wrote for this run, which is removed; undefined when the runner asked for no witness. */
export function takeWitnessKey(env: NodeJS.ProcessEnv): string | undefined {
  const keyFile = env[WITNESS_KEY_VAR];
  if (!keyFile) return undefined;
  const key = readFileSync(keyFile, 'utf8').trim();
  unlinkSync(keyFile);
  return key || undefined;
}

export function openWitness(key: string, recordFile: string): Witness {
  const fd = openSync(recordFile, 'a');
  const writeLine = writeSync;
  const apply = Reflect.apply;
  const NativePromise = Promise;
  // eslint-disable-next-line @typescript-eslint/unbound-method -- taken to be applied to each promise, never called unbound.
  const then = Promise.prototype.then;
  // Built by concatenation: an object literal would ask Object.prototype.toJSON, which the code under test can set.
  const write = (line: string): void => {
    try {
      writeLine(fd, `${key} ${line}\n`);
    } catch {
      // A record cut short only takes passes away.
    }
  };

  const recorded = (id: number | string, fn: Fn, doneAt: DoneAt | undefined): Fn => {
    const ran = typeof id === 'number' ? String(id) : `"${id}"`;
    const ended = (passed: boolean): void => write(`{"ran":${ran},"passed":${passed ? 'true' : 'false'}}`);
    const settled = (result: unknown): unknown =>
      apply(then, result, [
        (v: unknown) => (ended(true), v),
        (e: unknown) => {
          ended(false);
          throw e;
        },
      ]);
    const run = (self: unknown, args: unknown[]): unknown => {
      let result: unknown;
      try {
        result = apply(fn, self, args);
      } catch (err) {
        ended(false);
        throw err;
      }
      if (doneAt !== undefined) return result;
      if ((typeof result === 'object' || typeof result === 'function') && result !== null) {
        try {
          // Promise.prototype.then as it was: it reads the promise's own state, whatever its prototype now says.
          return settled(result);
        } catch {
          // Not a native promise: its outcome is its own then's to tell, which no rendered test returns.
          return settled(new NativePromise((resolve) => resolve(result)));
        }
      }
      ended(true);
      return result;
    };
    // The runner passes `done` to a function that declares it: its outcome is what `done` is called with.
    const reporting =
      (done: unknown) =>
      (err?: unknown): unknown => (
        ended(err === undefined || err === null),
        typeof done === 'function' ? apply(done as Fn, undefined, [err]) : undefined
      );
    if (doneAt === 0) {
      return function (this: unknown, done: unknown) {
        return run(this, [reporting(done)]);
      };
    }
    if (doneAt === 1) {
      return function (this: unknown, context: unknown, done: unknown) {
        return run(this, [context, reporting(done)]);
      };
    }
    return function (this: unknown, ...args: unknown[]) {
      return run(this, args);
    };
  };
  return { write, recorded };
}
