// The pure tier starts no process and no worker: every way to start one throws, naming the
// tiers a test that needs one belongs in. Loaded by the pure tier's mocha config before any
// test. The one exception is the TypeScript loader's own (tsx runs esbuild as a service and a
// worker to transpile the tests themselves): that is how the tier is read, not what it tests.
const childProcess = require('node:child_process');
const workerThreads = require('node:worker_threads');

const LOADER = /[\\/]node_modules[\\/](esbuild|tsx)[\\/]/;

function guard(owner, name, what) {
  const real = owner[name];
  owner[name] = function (...args) {
    if (!LOADER.test(new Error().stack ?? '')) {
      throw new Error(
        `${what}: the pure tier (test/unit) starts no process or worker; a test that needs one belongs in test/tools or test/runs (see CONTRIBUTING.md)`,
      );
    }
    return new.target ? Reflect.construct(real, args) : real.apply(this, args);
  };
}
for (const name of ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'])
  guard(childProcess, name, `child_process.${name}`);
guard(workerThreads, 'Worker', 'new Worker');
