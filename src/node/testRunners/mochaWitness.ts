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
// run and return (witnessRecord.ts). Its lines start with a key read from a file that is
// removed here, so code that writes to the record cannot forge one (witnessWriter.ts). Not
// reached: code that reads this process's memory (the inspector, /proc/self/mem) to find the
// key, and code loaded before this preload (a `require` of the project's .mocharc).
import { WITNESS_RECORD_VAR } from './witnessRecord';
import { openWitness, takeWitnessKey } from './witnessWriter';

/** The global names a test file declares suites and tests with (mocha's bdd and tdd interfaces). */
const SUITE_NAMES = ['describe', 'context', 'suite'];
const TEST_NAMES = ['it', 'specify', 'test'];

type Fn = (this: unknown, ...args: unknown[]) => unknown;

/** Starts the witness when the runner asked for one; mocha sets its globals afterwards, through the setters made here. */
export function startMochaWitness(env: NodeJS.ProcessEnv): void {
  const recordFile = env[WITNESS_RECORD_VAR];
  const key = takeWitnessKey(env);
  if (!key || !recordFile) return;
  const { write, recorded } = openWitness(key, recordFile);
  // Taken now: the code under test may replace each of them later.
  const apply = Reflect.apply;
  const define = Object.defineProperty;
  const stringify = JSON.stringify;

  // The titles of the describes being declared, by depth: a null prototype, so no setter on Array.prototype sees them.
  const titles: Record<number, string> = Object.create(null) as Record<number, string>;
  let depth = 0;
  let declared = 0;
  const fullTitle = (title: string): string => {
    let full = '';
    for (let i = 0; i < depth; i++) full = `${full}${titles[i]} `;
    return full + title;
  };

  const declaringTests = (real: Fn): Fn =>
    function (this: unknown, title: unknown, fn: unknown) {
      const id = ++declared;
      write(`{"declared":${id},"title":${stringify(typeof title === 'string' ? fullTitle(title) : '')}}`);
      return apply(real, this, [title, typeof fn === 'function' ? recorded(id, fn as Fn, (fn as Fn).length > 0 ? 0 : undefined) : fn]);
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
