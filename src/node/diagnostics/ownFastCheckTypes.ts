import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ToolResolver } from '../testRunners/toolResolution';

/** Where the build puts fast-check's types, beside Ticket Runner's copy of it (scripts/build.mjs). */
const TYPES = join('vendor', 'modules', 'fast-check', 'fast-check.d.ts');

/**
 * Compiler options under which a rendered property's `import 'fast-check'` type-checks in a
 * workspace without fast-check of its own: the name is mapped (`paths`) to the types of the copy
 * its tests run on (propertyRuns.ts). A workspace with its own fast-check, or a `paths` entry of
 * its own for the name, keeps its options as they are; so does a build without the types.
 * `distDir` is the folder of the bundle that asks (its `__dirname`).
 */
export function withOwnFastCheckTypes<O extends { paths?: Record<string, string[]> }>(options: O, root: string, distDir: string): O {
  const types = join(distDir, TYPES);
  if (options.paths?.['fast-check'] || !existsSync(types) || new ToolResolver(root).installed('fast-check')) return options;
  return { ...options, paths: { ...options.paths, 'fast-check': [types] } };
}
