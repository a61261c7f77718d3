// Preloaded (`--require`) into every node:test and mocha process of a run, before the test file
// and the code under test: it freezes the assertion library and node:test's API. The code under
// test runs in that process and could otherwise replace them, silencing `assert.strictEqual`
// everywhere but in the rendered test's control, or turning `it` into `it.skip`; a frozen
// export cannot be replaced (the assignment throws in strict code and does nothing elsewhere).
// Node's own modules call their internals through primordials, so patching globals cannot
// reach them either. Built to dist/testApisFrozen.cjs.
import type { ChildProcess } from 'node:child_process';
import { closeSync, fstatSync, writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import { isMainThread } from 'node:worker_threads';
import { startMochaWitness } from './mochaWitness';
import { handKey, KEY_FD, startNodeTestWitness } from './nodeTestWitness';
import { PID_CHANNEL_FD, PID_CHANNEL_VAR } from './pidChannel';
import { pinPropertySeed, registerOwnFastCheck } from './propertyPreload';
import { takeWitnessKey } from './witnessWriter';

const load = createRequire(__filename);
const assert = load('node:assert') as typeof import('node:assert');
Object.freeze(assert);
Object.freeze(assert.strict);
Object.freeze(load('node:test'));
// The rendered properties' seed and, for a workspace without it, where fast-check is (propertyRuns.ts).
pinPropertySeed(globalThis);
registerOwnFastCheck();

// node:test's root runs no code under test; each test file runs in a process the root starts.
const nodeTestRoot = process.execArgv.includes('--test') && process.env['NODE_TEST_CONTEXT'] === undefined;
const nodeTestFile = process.env['NODE_TEST_CONTEXT'] !== undefined;

// The run's word on which node processes ran the tests (V8's coverage is believed only for
// them: src/node/gates/v8Coverage.ts). Each process writes its pid to the socket the runner
// gave the command (fd 3), here, before the test file and the code under test load, then
// closes it: code that runs later in this process has no fd to write a pid of its own to, nor
// does a process it starts, and a socket cannot be opened again through /proc/<pid>/fd. The
// one process that keeps it is node:test's root: it hands the socket to each test file's
// process it starts (node:test gives them three stdio streams, and inherits nothing else),
// which writes and closes it here in turn. An fd 3 that is no socket is not the runner's
// (libuv's own, in a process started by the code under test): left alone.
const channel = Number(process.env[PID_CHANNEL_VAR]) === PID_CHANNEL_FD && isSocket(PID_CHANNEL_FD) ? PID_CHANNEL_FD : undefined;
if (channel !== undefined) {
  try {
    writeSync(channel, `${process.pid}\n`);
  } catch {
    // A socket that takes no pid is not the runner's.
  }
  if (!nodeTestRoot) closeSync(channel);
}

// What each test file's tests did, seen where the code under test cannot reach: in mocha's
// process (mochaWitness.ts), in each of node:test's test file processes (nodeTestWitness.ts),
// whose key node:test's root hands them. Only on the main thread: the thread of a module hook
// (registerOwnFastCheck's) runs this preload too, and would take the key first.
if (isMainThread) {
  if (nodeTestRoot) startTestFilesWith(channel, takeWitnessKey(process.env));
  else if (nodeTestFile) startNodeTestWitness(process.env);
  else startMochaWitness(process.env);
}

/** Gives each test file's process the root starts the pid channel at fd 3 and a pipe with the witness's key at KEY_FD. */
function startTestFilesWith(channel: number | undefined, key: string | undefined): void {
  if (channel === undefined && key === undefined) return;
  // ChildProcess.prototype.spawn is what child_process.spawn calls, with the stdio not yet read.
  type Spawn = (this: ChildProcess, options: { stdio?: unknown }) => unknown;
  const proto = (load('node:child_process') as typeof import('node:child_process')).ChildProcess.prototype as unknown as { spawn: Spawn };
  const spawn = proto.spawn;
  proto.spawn = function (options) {
    if (!Array.isArray(options.stdio) || options.stdio.length !== 3) return spawn.call(this, options);
    const stdio = [...(options.stdio as unknown[]), channel ?? 'ignore', ...(key === undefined ? [] : ['pipe'])];
    const started = spawn.call(this, { ...options, stdio });
    if (key !== undefined && this.stdio.length > KEY_FD) handKey(this, key);
    return started;
  };
}

function isSocket(fd: number): boolean {
  try {
    return fstatSync(fd).isSocket();
  } catch {
    return false;
  }
}
