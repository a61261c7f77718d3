// Loaded into the test processes by the preloads (testApisFrozen.ts, expectFrozen.mts): node's
// own modules only. What a test process needs for the rendered properties (fast-check).
import { register } from 'node:module';
import { pathToFileURL } from 'node:url';
import { PROPERTY_SEED_KEY } from '../../core/stages/materializer/property';

/** The variable that carries the attempt's seed to the test processes, whose preload pins it. */
export const PROPERTY_SEED_VAR = 'TICKET_RUNNER_PROPERTY_SEED';

/** The variable that names Ticket Runner's own fast-check, set only for a workspace that has none. */
export const OWN_FAST_CHECK_VAR = 'TICKET_RUNNER_FAST_CHECK';

/** Where the build puts Ticket Runner's own fast-check: a package folder, under a folder NODE_PATH can name. */
export const VENDORED_MODULES = 'vendor/modules';

/**
 * The ESM resolve hook that sends `fast-check` to Ticket Runner's copy when nothing else resolves
 * it: the workspace's own copy always wins. Registered by the node:test and mocha preload from a
 * data: URL, so the copy needs no hook file beside it.
 */
export const FAST_CHECK_HOOK = `let own;
export async function initialize(data) {
  own = data;
}
export async function resolve(specifier, context, next) {
  try {
    return await next(specifier, context);
  } catch (err) {
    if (specifier !== 'fast-check' || !own || !err || err.code !== 'ERR_MODULE_NOT_FOUND') throw err;
    return { url: own, format: 'commonjs', shortCircuit: true };
  }
}`;

/**
 * Pins the run's seed on `g` (the test file's global object), where the rendered file reads it,
 * before the code under test loads: a seed read from the environment later could be one that
 * code put there, to draw inputs its bug survives. A pinned seed cannot be set or redefined.
 */
export function pinPropertySeed(g: object, env: NodeJS.ProcessEnv = process.env): void {
  const text = env[PROPERTY_SEED_VAR];
  if (text === undefined || !/^-?\d{1,10}$/.test(text)) return;
  const key = Symbol.for(PROPERTY_SEED_KEY);
  if (Object.getOwnPropertyDescriptor(g, key)) return;
  Object.defineProperty(g, key, { value: Number(text), writable: false, configurable: false, enumerable: false });
}

/** Registers `FAST_CHECK_HOOK` when the runner named Ticket Runner's own fast-check (see propertyRuns.ts). */
export function registerOwnFastCheck(env: NodeJS.ProcessEnv = process.env): void {
  const own = env[OWN_FAST_CHECK_VAR];
  if (!own) return;
  register(`data:text/javascript,${encodeURIComponent(FAST_CHECK_HOOK)}`, { data: pathToFileURL(own).href });
}
