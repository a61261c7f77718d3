// node:test's witness, mocha's (mochaWitness.ts) made for node:test's processes. node:test runs
// each test file in a process of its own, started by its root process, which runs no code under
// test; the code under test runs beside node:test's reporter, which serializes each result to
// the root on stdout, and can rewrite those bytes, the exit code, or the AsyncResource method
// that runs each test's function. So the adapter believes a pass of node:test's report only if
// the witness saw that test's own function run and return (witnessRecord.ts).
//
// The key: the root takes it from its file (takeWitnessKey) and hands it to each test file's
// process on a pipe of its own (KEY_FD), which that process reads and closes here, before the
// test file and the code under test load. Nothing else of the run holds it: not the
// environment nor the arguments, which /proc shows, nor a file that a test file's process could
// read before the next one removes it.
//
// The tests: each test node:test makes (`test`, `it`, `describe`, `suite`, `t.test`, from either
// export, by import or require) is an AsyncResource of type 'Test', and an async hook made here
// sees it first, before node:test's constructor sets its name, parent and function. The hook
// makes those three accessors that no later hook can define again: the first function set is
// the test file's, wrapped to record its runs; one set later (a suite's, once its body ran, or
// the code under test's) is kept as it is, so a function swapped in runs unwitnessed. Not
// reached, as for mocha: code that reads this process's memory, and a hook's failure (the
// witness judges each test's own function).
import { createHook } from 'node:async_hooks';
import type { ChildProcess } from 'node:child_process';
import { closeSync, fstatSync, readSync } from 'node:fs';
import { WITNESS_RECORD_VAR } from './witnessRecord';
import { openWitness, type Witness } from './witnessWriter';

/** The fd of the pipe on which node:test's root hands each test file's process the key; the pid channel's is 3. */
export const KEY_FD = 4;

type Fn = (this: unknown, ...args: unknown[]) => unknown;

/** What the hook keeps of a test, behind its accessors. */
interface Held {
  name?: unknown;
  parent?: unknown;
  fn?: unknown;
}

/** In node:test's root, once it started a test file's process with a pipe at KEY_FD: writes the key there and closes it. */
export function handKey(child: ChildProcess, key: string): void {
  const pipe = child.stdio[KEY_FD] as NodeJS.ReadWriteStream | null | undefined;
  if (!pipe) return;
  pipe.on('error', () => undefined);
  pipe.end(key);
  pipe.resume();
}

/** In a test file's process: starts the witness with the key its root handed it; without one, nothing is witnessed and no pass counts. */
export function startNodeTestWitness(env: NodeJS.ProcessEnv): void {
  const recordFile = env[WITNESS_RECORD_VAR];
  const key = recordFile ? readKey() : undefined;
  if (!key || !recordFile) return;
  watchTests(openWitness(key, recordFile));
}

function readKey(): string | undefined {
  try {
    if (!fstatSync(KEY_FD).isSocket()) return undefined;
    const chunk = Buffer.alloc(128);
    let key = '';
    for (let n = readSync(KEY_FD, chunk); n > 0; n = readSync(KEY_FD, chunk)) key += chunk.toString('utf8', 0, n);
    closeSync(KEY_FD);
    return key.trim() || undefined;
  } catch {
    return undefined;
  }
}

function watchTests({ write, recorded }: Witness): void {
  // Taken now: the code under test may replace each of them later.
  const define = Object.defineProperty;
  const stringify = JSON.stringify;
  const pid = process.pid;
  let declared = 0;
  // node:test's report names a test after the tests around it, up to the file's root test, which has no parent.
  const titleOf = (held: Held): string => {
    let title = typeof held.name === 'string' ? held.name : '';
    for (let t = held.parent as Held | null | undefined; t && t.parent; t = t.parent as Held)
      title = `${typeof t.name === 'string' ? t.name : ''} > ${title}`;
    return title;
  };
  const declare = (held: Held, fn: Fn): Fn => {
    const id = `${pid}.${++declared}`;
    write(`{"declared":"${id}","title":${stringify(titleOf(held))}}`);
    // node:test passes `done` to a function that declares two parameters, after the test's context.
    return recorded(id, fn, fn.length === 2 ? 1 : undefined);
  };
  createHook({
    init(_id: number, type: string, _trigger: number, test: object) {
      if (type !== 'Test') return;
      const held: Held = Object.create(null) as Held;
      let first = true;
      const field = (name: 'name' | 'parent'): PropertyDescriptor => ({
        get: () => held[name],
        set: (v: unknown) => void (held[name] = v),
        enumerable: true,
        configurable: false,
      });
      define(test, 'name', field('name'));
      define(test, 'parent', field('parent'));
      define(test, 'fn', {
        get: () => held.fn,
        set: (v: unknown) => {
          // A root test, or a hook, has no parent: neither is a test the report names.
          const ours = first && typeof v === 'function' && held.parent !== null && held.parent !== undefined;
          first = false;
          held.fn = ours ? declare(held, v as Fn) : v;
        },
        enumerable: true,
        configurable: false,
      });
    },
  }).enable();
}
