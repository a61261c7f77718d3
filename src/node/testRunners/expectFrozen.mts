// Preloaded (NODE_OPTIONS=--import) into every process of a vitest or jest run, so it reaches
// the workers that load the test files: it freezes the assertion library after the runner and
// the project's setup files have set it up, and before the test file, and so the code under
// test it imports, loads. The code under test shares the worker with the test and could
// otherwise replace a matcher (on chai's Assertion.prototype, through `chai.util.overwriteMethod`
// or `expect.extend`), add an equality tester that calls everything equal, or wrap the global
// `it`, everywhere or everywhere but in the rendered test's control. A frozen object refuses the
// change (the assignment throws in strict code and does nothing elsewhere). A vitest without the
// runner class this patches does not run. Not reached: a vitest project's own `test.runner`,
// vitest's vm pools (their chai is another instance), a jest-runtime not required by that name.
// Built to dist/expectFrozen.mjs.
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import Module from 'node:module';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { isMainThread } from 'node:worker_threads';
import { pinPropertySeed } from './propertyPreload.js';
import { withOwnFastCheck } from './vitestFastCheck.js';

/** The globals a test file calls the runner through, when the runner installs them. */
const TEST_GLOBALS = [
  'expect',
  'it',
  'test',
  'describe',
  'fit',
  'xit',
  'xtest',
  'fdescribe',
  'xdescribe',
  'beforeAll',
  'beforeEach',
  'afterAll',
  'afterEach',
];

type Loose = Record<PropertyKey, unknown>;

/** Freezes `value` (an object or a function) and every object or function among its own properties, one level down. */
function freezeWithMembers(value: unknown): void {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return;
  for (const key of Reflect.ownKeys(value)) {
    const d = Reflect.getOwnPropertyDescriptor(value, key);
    if (d && 'value' in d && (typeof d.value === 'function' || (typeof d.value === 'object' && d.value !== null))) Object.freeze(d.value);
  }
  Object.freeze(value);
}

/** The matchers and the equality testers `expect` keeps on the global object, and the test globals, frozen in place. */
function freezeExpectState(g: Loose, symbols: string[]): void {
  for (const name of symbols) {
    const held = g[Symbol.for(name)] as Loose | undefined;
    if (!held) continue;
    if (held.matchers) Object.freeze(held.matchers);
    if (held.customEqualityTesters) Object.freeze(held.customEqualityTesters);
    pin(g, Symbol.for(name), held);
  }
  for (const name of TEST_GLOBALS) {
    const d = Object.getOwnPropertyDescriptor(g, name);
    if (!d || !('value' in d) || d.value === undefined) continue;
    freezeWithMembers(d.value);
    pin(g, name, d.value);
  }
}

/** `g[key]` can no longer be set or redefined (the runner may have pinned it already). */
function pin(g: Loose, key: PropertyKey, value: unknown): void {
  const d = Object.getOwnPropertyDescriptor(g, key);
  if (d && !d.configurable && !('value' in d && d.writable)) return;
  Object.defineProperty(g, key, { value, writable: false, configurable: false });
}

function realOr(p: string | undefined): string {
  if (!p) return '';
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

/** The folder of the package named `name` that holds `file`, if one does. */
function packageRootOf(file: string, name: string): string | undefined {
  for (let dir = path.dirname(file); dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const manifest = path.join(dir, 'package.json');
    if (!existsSync(manifest)) continue;
    try {
      // A plain check, not zod: this preload loads into the test process and keeps to node's own modules.
      const pkg: unknown = JSON.parse(readFileSync(manifest, 'utf8'));
      if (typeof pkg === 'object' && pkg !== null && 'name' in pkg && pkg.name === name) return dir;
    } catch {
      // not a manifest we can read: look further up
    }
  }
  return undefined;
}

interface VitestRunnerClass {
  prototype: { importFile: (this: unknown, file: string, source: string) => unknown };
}

/**
 * vitest: its runner imports the setup files, then each test file (`importFile(file, 'collect')`).
 * Just before a test file, chai's Assertion (its prototype: every matcher and `assert`) and its
 * config, vitest's `expect` and the matchers state are frozen.
 */
async function guardVitest(root: string): Promise<void> {
  const runners = (await import(pathToFileURL(path.join(root, 'dist', 'runners.js')).href)) as { VitestTestRunner?: VitestRunnerClass };
  const vitest = (await import(pathToFileURL(path.join(root, 'dist', 'index.js')).href)) as {
    chai: { Assertion: { prototype: object }; config: object };
    expect: object;
  };
  const runner = runners.VitestTestRunner;
  if (!runner) throw new Error('ticket-runner: this vitest has no VitestTestRunner to guard; the test run cannot be judged');
  const importFile = runner.prototype.importFile;
  // Only this method is pinned: vitest sets others of the prototype's names on its runner instances.
  Object.defineProperty(runner.prototype, 'importFile', {
    writable: false,
    configurable: false,
    value: function (this: unknown, file: string, source: string) {
      if (source === 'collect') {
        Object.freeze(vitest.chai.Assertion.prototype);
        Object.freeze(vitest.chai.Assertion);
        Object.freeze(vitest.chai.config);
        freezeWithMembers(vitest.expect);
        freezeExpectState(globalThis, ['matchers-object', '$$jest-matchers-object']);
      }
      return importFile.call(this, file, source);
    },
  });
}

interface JestRuntime {
  _testPath?: string;
  _environment?: { global?: Loose };
}
type RuntimeMethod = (this: JestRuntime, from: string, moduleName?: string, ...rest: unknown[]) => unknown;

/**
 * jest: the test framework loads the setup files, then the test file itself with
 * `runtime.requireModule(testPath)` (or `unstable_importModule` for ESM). Just before that,
 * the environment's `expect`, its matchers and equality testers and the test globals are frozen.
 * jest-runtime is patched as it is first required, wherever it is installed.
 */
function guardJest(): void {
  const loader = Module as unknown as { _load: (request: string, parent: unknown, isMain: boolean) => unknown };
  const load = loader._load;
  loader._load = function (request: string, parent: unknown, isMain: boolean) {
    const exported = load.call(this, request, parent, isMain) as { default?: { prototype?: Record<string, unknown> } } | undefined;
    const proto = request === 'jest-runtime' ? exported?.default?.prototype : undefined;
    if (proto && Object.getOwnPropertyDescriptor(proto, 'requireModule')?.writable) {
      for (const name of ['requireModule', 'unstable_importModule']) {
        const real = proto[name] as RuntimeMethod | undefined;
        if (typeof real !== 'function') continue;
        proto[name] = function (this: JestRuntime, from: string, moduleName?: string, ...rest: unknown[]) {
          if (moduleName === undefined && from === this._testPath) {
            const g = this._environment?.global;
            if (!g) throw new Error('ticket-runner: no test environment to guard; the test run cannot be judged');
            freezeExpectState(g, ['$$jest-matchers-object']);
            // The test file's own global (a vm context), before the file and the code under test load.
            pinPropertySeed(g);
          }
          return real.call(this, from, moduleName, ...rest);
        } satisfies RuntimeMethod;
        Object.defineProperty(proto, name, { writable: false, configurable: false });
      }
    }
    return exported;
  };
}

const entry = realOr(process.argv[1]);
const vitest = packageRootOf(entry, 'vitest');
if (vitest && (entry.startsWith(path.join(vitest, 'dist', 'workers') + path.sep) || !isMainThread)) {
  // vitest's test files share the worker's global object: pinned here, before any of them loads.
  pinPropertySeed(globalThis);
  await guardVitest(vitest);
} else if (vitest && entry === realOr(path.join(vitest, 'vitest.mjs'))) {
  // vitest's own process, before it reads its arguments: a workspace without fast-check gets Ticket Runner's.
  process.argv.splice(2, Infinity, ...withOwnFastCheck(process.argv.slice(2), process.cwd()));
} else if (packageRootOf(entry, 'jest-worker') || packageRootOf(entry, 'jest') || packageRootOf(entry, 'jest-cli')) guardJest();

export {};
