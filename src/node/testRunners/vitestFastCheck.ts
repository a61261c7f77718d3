// Loaded into vitest's main process by its preload (expectFrozen.mts): node's own modules only.
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { OWN_FAST_CHECK_VAR } from './propertyPreload';

/**
 * vitest and Ticket Runner's own fast-check. vite resolves a test's imports itself, from the
 * node_modules folders above the test file: it reads neither NODE_PATH nor Node's resolve hooks,
 * so a workspace without fast-check fails the rendered property's `import 'fast-check'`. In
 * vitest's main process, before it reads its arguments, the preload hands it a config of its
 * own (in the command's temporary folder, removed with it) that loads the project's config and
 * adds two things: an alias of `fast-check` to the copy, and the copy's folder as a folder of
 * packages, so that vitest loads it as Node would (a package it does not transform).
 */

/** The config files vitest looks for in its root, in its order. */
const CONFIG_FILES = ['vitest', 'vite'].flatMap((name) => ['ts', 'mts', 'cts', 'js', 'mjs', 'cjs'].map((ext) => `${name}.config.${ext}`));

/** The wrapper's text: the project's config (or none), with the alias and the folder of packages added. */
export function wrapperConfig(projectConfig: string | undefined, own: string): string {
  return [
    projectConfig ? `import * as project from ${JSON.stringify(pathToFileURL(projectConfig).href)};` : 'const project = {};',
    `const own = ${JSON.stringify(own)};`,
    `const folder = ${JSON.stringify(dirname(dirname(own)) + '/')};`,
    'const aliases = (a) => (Array.isArray(a) ? a : Object.entries(a ?? {}).map(([find, replacement]) => ({ find, replacement })));',
    'const withOwn = (c = {}) => ({',
    '  ...c,',
    '  resolve: { ...c.resolve, alias: [...aliases(c.resolve?.alias), { find: /^fast-check$/, replacement: own }] },',
    '  test: { ...c.test, deps: { ...c.test?.deps, moduleDirectories: [...(c.test?.deps?.moduleDirectories ?? []), folder] } },',
    '});',
    'export default async (env) => {',
    '  const c = await project.default;',
    "  return withOwn(typeof c === 'function' ? await c(env) : c);",
    '};',
    '',
  ].join('\n');
}

/** The config vitest would load: the one `--config` names (undefined for `--no-config`), or the first it finds in `cwd`. */
function projectConfigOf(args: string[], cwd: string): { file?: string; at: number[] } | 'none' {
  const at: number[] = [];
  let named: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--no-config' || a === '--config=false') return 'none';
    if (a === '--config' || a === '-c') {
      named = args[i + 1];
      at.push(i, i + 1);
    } else if (a.startsWith('--config=')) {
      named = a.slice('--config='.length);
      at.push(i);
    }
  }
  if (named !== undefined) return { file: isAbsolute(named) ? named : resolve(cwd, named), at };
  const found = CONFIG_FILES.map((f) => join(cwd, f)).find((f) => existsSync(f));
  return { ...(found ? { file: found } : {}), at };
}

/**
 * vitest's arguments (after node and the script) with the wrapper config in place of the
 * project's, when the run named Ticket Runner's own fast-check; the arguments as they were
 * otherwise, or when the command said `--no-config`.
 */
export function withOwnFastCheck(args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): string[] {
  const own = env[OWN_FAST_CHECK_VAR];
  if (!own) return args;
  const project = projectConfigOf(args, cwd);
  if (project === 'none') return args;
  const file = join(mkdtempSync(join(tmpdir(), 'ticket-runner-vitest-')), 'vitest.config.mjs');
  writeFileSync(file, wrapperConfig(project.file, own));
  return [...args.filter((_, i) => !project.at.includes(i)), `--config=${file}`];
}
