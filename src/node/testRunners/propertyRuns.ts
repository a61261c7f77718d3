import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { ToolResolver } from './toolResolution';
import { OWN_FAST_CHECK_VAR, PROPERTY_SEED_VAR, VENDORED_MODULES } from './propertyPreload';

/**
 * The environment the test processes get for the properties. The seed, when the run gives one.
 * fast-check, where the workspace has none of its own (whatever the files: a property rendered
 * for an earlier ticket is one of the project's tests now): the rendered test imports it by its bare
 * name (the file is the user's, and works once they install fast-check), so the name is made to
 * resolve to Ticket Runner's copy, `dist/vendor/modules/fast-check`, in the two ways Node finds
 * a module. `require()` (node:test and mocha in CommonJS, and jest, whose own resolver reads it
 * too) looks in the folders of NODE_PATH, which gets the vendored folder appended, after any the
 * run had; `import` ignores NODE_PATH, so the node:test and mocha preload registers a resolve
 * hook (`FAST_CHECK_HOOK`) when OWN_FAST_CHECK_VAR names the copy. vitest resolves a test's
 * imports with vite, which knows neither: its preload gives it a config that aliases the name to
 * the copy (`vitestFastCheck.ts`). The type checks see the copy's types (`ownFastCheckTypes.ts`).
 */
export function propertyEnvironment(
  workspace: string,
  distDir: string,
  seed: number | undefined,
  env: Readonly<Record<string, string>> = {},
): Record<string, string> {
  const out: Record<string, string> = seed === undefined ? {} : { [PROPERTY_SEED_VAR]: String(seed) };
  const vendored = join(distDir, VENDORED_MODULES);
  const own = join(vendored, 'fast-check', 'index.cjs');
  if (new ToolResolver(workspace).installed('fast-check') || !existsSync(own)) return out;
  return { ...out, [OWN_FAST_CHECK_VAR]: own, NODE_PATH: [env['NODE_PATH'], vendored].filter(Boolean).join(delimiter) };
}
