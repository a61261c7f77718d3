// Loaded into mocha's process by the frozen preload (testApisFrozen.ts), before any test file
// and so before the code under test. It keeps node's own modules only.
//
// Why a witness and not a frozen mocha: the code under test runs in mocha's process, and the way
// from a test's throw to "passed" goes through Runner.prototype.fail and emit, EventEmitter,
// the reporters, fs.writeFileSync, JSON.stringify and process.exitCode, each one the code can
// replace in memory. Freezing them all would break the project's own tests that stub fs or
// process. The witness sits at the one place the code cannot reach around: the call a test
// file makes to describe and it. It wraps the function each test file gives it and writes,
// through functions taken here before the code under test loads, how each run of that function
// ended; the adapter believes a pass from mocha's report only if the witness saw that function
// run and return (mochaWitnessRecord.ts). Its lines start with a key read from a file that is
// removed here, so code that writes to the record cannot forge one. Not reached: code that reads
// this process's memory (the inspector, /proc/self/mem) to find the key, and code loaded before
// this preload (a `require` of the project's .mocharc).
import { openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { WITNESS_KEY_VAR, WITNESS_RECORD_VAR } from './mochaWitnessRecord';

/** The global names a test file declares suites and tests with (mocha's bdd and tdd interfaces). */
const SUITE_NAMES = ['describe', 'context', 'suite'];
const TEST_NAMES = ['it', 'specify', 'test'];

type Fn = (this: unknown, ...args: unknown[]) => unknown;

/** Starts the witness when the runner asked for one; mocha sets its globals afterwards, through the setters made here. */
export function startMochaWitness(env: NodeJS.ProcessEnv): void {
  const keyFile = env[WITNESS_KEY_VAR];
  const recordFile = env[WITNESS_RECORD_VAR];
  if (!keyFile || !recordFile) return;
  const key = readFileSync(keyFile, 'utf8').trim();
  unlinkSync(keyFile);
  const fd = openSync(recordFile, 'a');
  // Taken now: the code under test may replace each of them later.
  const apply = Reflect.apply;
  const define = Object.defineProperty;
  const stringify = JSON.stringify;
  // eslint-disable-next-line @typescript-eslint/unbound-method -- taken to be applied to each promise, never called unbound.
  const then = Promise.prototype.then;
  // Built by concatenation: an object literal would ask Object.prototype.toJSON, which the code under test can set.
  const write = (line: string): void => {
    try {
      writeSync(fd, `${key} ${line}\n`);
    } catch {
      // A record cut short only takes passes away.
    }
  };

  // The titles of the describes being declared, by depth: a null prototype, so no setter on Array.prototype sees them.
  const titles: Record<number, string> = Object.create(null) as Record<number, string>;
  let depth = 0;
  let declared = 0;
  const fullTitle = (title: string): string => {
    let full = '';
    for (let i = 0; i < depth; i++) full = `${full}${titles[i]} `;
    return full + title;
  };

  const recorded = (id: number, fn: Fn): Fn => {
    const ended = (passed: boolean): void => write(`{"ran":${id},"passed":${passed ? 'true' : 'false'}}`);
    const run = (self: unknown, args: unknown[]): unknown => {
      let result: unknown;
      try {
        result = apply(fn, self, args);
      } catch (err) {
        ended(false);
        throw err;
      }
      if (args.length > 0) return result;
      if ((typeof result === 'object' || typeof result === 'function') && result !== null) {
        try {
          // Promise.prototype.then as it was: it reads the promise's own state, whatever its prototype now says.
          return apply(then, result, [
            (v: unknown) => (ended(true), v),
            (e: unknown) => {
              ended(false);
              throw e;
            },
          ]);
        } catch {
          // Not a native promise: its outcome is its own then's to tell, which no rendered test returns.
          return apply(then, Promise.resolve(result), [
            (v: unknown) => (ended(true), v),
            (e: unknown) => {
              ended(false);
              throw e;
            },
          ]);
        }
      }
      ended(true);
      return result;
    };
    // Mocha passes `done` to a function that takes one: its outcome is what `done` is called with.
    if (fn.length > 0) {
      return function (this: unknown, done: unknown) {
        const report = (err?: unknown): unknown => (
          ended(err === undefined || err === null),
          typeof done === 'function' ? apply(done as Fn, undefined, [err]) : undefined
        );
        return run(this, [report]);
      };
    }
    return function (this: unknown) {
      return run(this, []);
    };
  };

  const declaringTests = (real: Fn): Fn =>
    function (this: unknown, title: unknown, fn: unknown) {
      const id = ++declared;
      write(`{"declared":${id},"title":${stringify(typeof title === 'string' ? fullTitle(title) : '')}}`);
      return apply(real, this, [title, typeof fn === 'function' ? recorded(id, fn as Fn) : fn]);
    };

  const declaringSuites = (real: Fn): Fn => {
    const wrapper = function (this: unknown, title: unknown, body: unknown) {
      let ran = typeof body !== 'function';
      const inner = function (this: unknown, ...args: unknown[]) {
        ran = true;
        return apply(body as Fn, this, args);
      };
      titles[depth++] = typeof title === 'string' ? title : '';
      try {
        return apply(real, this, [title, typeof body === 'function' ? inner : body]);
      } finally {
        depth--;
        if (!ran) write(`{"tampered":${stringify(typeof title === 'string' ? title : '')}}`);
      }
    };
    // describe.only declares as describe does; mocha sets it on what the global holds.
    let only: unknown;
    define(wrapper, 'only', {
      get: () => only,
      set: (v: unknown) => void (only = typeof v === 'function' ? declaringSuites(v as Fn) : v),
      configurable: false,
    });
    return wrapper;
  };

  // The globals mocha sets for each test file: it keeps setting them, and whatever it, or the
  // code under test, sets is wrapped, so that every call a test file makes passes through here.
  const guard = (name: string, wrap: (real: Fn) => Fn): void => {
    let held: unknown;
    define(globalThis, name, {
      get: () => held,
      set: (v: unknown) => void (held = typeof v === 'function' ? wrap(v as Fn) : v),
      configurable: false,
    });
  };
  for (const name of SUITE_NAMES) guard(name, declaringSuites);
  for (const name of TEST_NAMES) guard(name, declaringTests);
}
