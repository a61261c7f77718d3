// Preloaded (`--require`) into every node:test and mocha process of a run, before the test file
// and the code under test: it freezes the assertion library and node:test's API. The code under
// test runs in that process and could otherwise replace them, silencing `assert.strictEqual`
// everywhere but in the rendered test's control, or turning `it` into `it.skip`; a frozen
// export cannot be replaced (the assignment throws in strict code and does nothing elsewhere).
// Node's own modules call their internals through primordials, so patching globals cannot
// reach them either. Built to dist/testApisFrozen.cjs.
import { closeSync, fstatSync, writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import { startMochaWitness } from './mochaWitness';
import { PID_CHANNEL_FD, PID_CHANNEL_VAR } from './pidChannel';
import { pinPropertySeed, registerOwnFastCheck } from './propertyPreload';

const load = createRequire(__filename);
const assert = load('node:assert') as typeof import('node:assert');
Object.freeze(assert);
Object.freeze(assert.strict);
Object.freeze(load('node:test'));
// The rendered properties' seed and, for a workspace without it, where fast-check is (propertyRuns.ts).
pinPropertySeed(globalThis);
registerOwnFastCheck();
// In mocha's process, what each test file's tests did, seen where the code under test cannot reach (mochaWitness.ts).
startMochaWitness(process.env);

// The run's word on which node processes ran the tests (V8's coverage is believed only for
// them: src/node/gates/v8Coverage.ts). Each process writes its pid to the socket the runner
// gave the command (fd 3), here, before the test file and the code under test load, then
// closes it: code that runs later in this process has no fd to write a pid of its own to, nor
// does a process it starts, and a socket cannot be opened again through /proc/<pid>/fd. The
// one process that keeps it is node:test's root, which runs no code under test: it hands the
// socket to each test file's process it starts (node:test gives them three stdio streams, and
// inherits nothing else), which writes and closes it here in turn. An fd 3 that is no socket
// is not the runner's (libuv's own, in a process started by the code under test): left alone.
const channel = Number(process.env[PID_CHANNEL_VAR]);
if (channel === PID_CHANNEL_FD && isSocket(channel)) {
  try {
    writeSync(channel, `${process.pid}\n`);
  } catch {
    // A socket that takes no pid is not the runner's.
  }
  if (process.execArgv.includes('--test') && process.env['NODE_TEST_CONTEXT'] === undefined) {
    // ChildProcess.prototype.spawn is what child_process.spawn calls, with the stdio not yet read.
    type Spawn = (this: unknown, options: { stdio?: unknown }) => unknown;
    const proto = (load('node:child_process') as typeof import('node:child_process')).ChildProcess.prototype as unknown as { spawn: Spawn };
    const spawn = proto.spawn;
    proto.spawn = function (options) {
      const stdio = Array.isArray(options.stdio) && options.stdio.length === 3 ? [...(options.stdio as unknown[]), channel] : options.stdio;
      return spawn.call(this, { ...options, stdio });
    };
  } else {
    closeSync(channel);
  }
}

function isSocket(fd: number): boolean {
  try {
    return fstatSync(fd).isSocket();
  } catch {
    return false;
  }
}
