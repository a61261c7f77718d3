import { parse as parseYaml } from 'yaml';
import type { WorkspacePort } from '../../ports/workspace';
import { RUNNER_CONFIGS } from '../manifest/manifestBuilder';
import { workspacePackages } from '../common/workspacePackages';
import { parseJsonc } from './pathAliases';
import { relativeModuleFile } from './reach';

/**
 * What the test runners load besides the test files: the setup files their configs name. A
 * setup file runs before every test file, so a test that imports nothing of a change still runs
 * after it when a setup file imports it. The configs are read as written, never run: one whose
 * setup files cannot be read off its text (a value computed in code, settings taken from another
 * file) answers unknown, and the caller then cannot say which tests a change reaches.
 *
 * node:test runs with a command of Ticket Runner's own, which loads nothing the project names.
 */

/** The workspace files runner configs load before the tests, each with its config, or why they cannot be told. */
export type SetupFiles = { files: { config: string; file: string }[] } | { unknown: string };

type Runner = keyof typeof RUNNER_CONFIGS;

/** The keys of each runner's config whose values name modules loaded around every test file. */
const SETUP_KEYS: Record<Runner, readonly string[]> = {
  mocha: ['require', 'file', 'node-option'],
  vitest: ['setupFiles', 'globalSetup'],
  jest: ['setupFiles', 'setupFilesAfterEnv', 'globalSetup', 'globalTeardown', 'testEnvironment'],
};

/** vitest reads vite's config when it has none of its own. */
const VITE_CONFIGS = RUNNER_CONFIGS.vitest.map((f) => f.replace(/^vitest/, 'vite'));

/** The runners whose config may also be a key of package.json. */
const PACKAGE_KEYS: readonly Runner[] = ['mocha', 'jest'];

/** Every setup file the configs at the root and in each npm-workspaces package name. */
export async function runnerSetupFiles(ws: WorkspacePort): Promise<SetupFiles> {
  const files: { config: string; file: string }[] = [];
  for (const dir of ['', ...(await workspacePackages(ws)).map((p) => p.dir)]) {
    const at = (name: string) => (dir ? `${dir}/${name}` : name);
    const pkg = await ws.readFile(at('package.json'));
    for (const runner of Object.keys(SETUP_KEYS) as Runner[]) {
      const keys = SETUP_KEYS[runner];
      const found: { config: string; names: NamesRead }[] = [];
      for (const name of runner === 'vitest' ? [...RUNNER_CONFIGS.vitest, ...VITE_CONFIGS] : RUNNER_CONFIGS[runner]) {
        const text = await ws.readFile(at(name));
        if (text !== null) found.push({ config: at(name), names: namesIn(name, text, keys) });
      }
      if (pkg !== null && PACKAGE_KEYS.includes(runner)) found.push({ config: at('package.json'), names: packageKey(pkg, runner, keys) });
      for (const { config, names } of found) {
        if ('unknown' in names) return { unknown: `${config} ${names.unknown}` };
        for (const name of names.values) {
          const file = await setupFile(ws, config, name);
          if (file) files.push({ config, file });
        }
      }
    }
  }
  return { files };
}

type NamesRead = { values: string[] } | { unknown: string };

function namesIn(configName: string, text: string, keys: readonly string[]): NamesRead {
  if (/\.jsonc?$/.test(configName)) return parsed(() => parseJsonc(text), keys);
  if (/\.ya?ml$/.test(configName)) return parsed(() => parseYaml(text) as unknown, keys);
  return writtenOut(text, keys);
}

function packageKey(text: string, key: string, keys: readonly string[]): NamesRead {
  return parsed(() => {
    const json = JSON.parse(text) as unknown;
    return isRecord(json) ? json[key] : undefined;
  }, keys);
}

/** The names a config's data gives the keys: each a string or a list of strings. */
function parsed(read: () => unknown, keys: readonly string[]): NamesRead {
  let data: unknown;
  try {
    data = read();
  } catch {
    return { unknown: 'cannot be parsed to find its setup files' };
  }
  if (data === undefined || data === null) return { values: [] };
  if (!isRecord(data)) return { unknown: 'is not an object of settings' };
  const values: string[] = [];
  for (const key of keys) {
    const v = data[key];
    if (v === undefined) continue;
    const list = Array.isArray(v) ? (v as unknown[]) : [v];
    if (!list.every((x): x is string => typeof x === 'string')) return { unknown: `sets ${key} to something other than file names` };
    values.push(...list.map((x) => nodeOptionTarget(key, x)).filter((x): x is string => x !== undefined));
  }
  return { values };
}

const LITERAL = String.raw`'[^'\n]*'|"[^"\n]*"|` + '`[^`$\\n]*`';
const WRITTEN_VALUE = new RegExp(String.raw`^\s*:\s*(${LITERAL}|\[\s*(?:(?:${LITERAL})\s*,\s*)*(?:(?:${LITERAL})\s*)?\])`);
const LITERALS = new RegExp(LITERAL, 'g');
/** A config's text as strings, comments and names, so that a key inside a string or a comment is not read as one. */
const TOKENS = /('(?:\\.|[^'\\\n])*'|"(?:\\.|[^"\\\n])*"|`[^`]*`)|\/\/[^\n]*|\/\*[\s\S]*?\*\/|(?<![\w$])([A-Za-z_$][\w$]*(?:-[\w$]+)*)/g;

/**
 * The names a config written in code gives the keys, when every mention of a key is `key:` and a
 * string or a list of strings written out. A config that takes code from another file of the
 * project (a shared base, `mergeConfig`) may get setup files from it: unknown.
 */
function writtenOut(text: string, keys: readonly string[]): NamesRead {
  if (/\bmergeConfig\s*\(|\bfrom\s*['"]\.{1,2}\/|\b(?:require|import)\s*\(\s*['"]\.{1,2}\//.test(text))
    return { unknown: 'takes settings from another file of the project' };
  const values: string[] = [];
  for (const m of text.matchAll(TOKENS)) {
    const key = m[1] !== undefined ? m[1].slice(1, -1) : m[2];
    const rest = text.slice(m.index + m[0].length);
    // A string is a key only as a quoted property name.
    if (key === undefined || !keys.includes(key) || (m[1] !== undefined && !/^\s*:/.test(rest))) continue;
    const value = WRITTEN_VALUE.exec(rest);
    if (value) {
      for (const lit of value[1]!.match(LITERALS) ?? []) {
        const target = nodeOptionTarget(key, lit.slice(1, -1));
        if (target !== undefined) values.push(target);
      }
    } else if (!/^\s*\(/.test(rest)) {
      // A call (`require('tsx/cjs')`) loads a package; anything else computes the value.
      return { unknown: `sets ${key} in code, not as file names written out` };
    }
  }
  return { values };
}

/** mocha's `node-option` entries are node's flags: only those that load a module name one. */
function nodeOptionTarget(key: string, value: string): string | undefined {
  if (key !== 'node-option') return value;
  return /^(?:import|require|loader|experimental-loader)=(.+)$/.exec(value)?.[1];
}

/** The workspace file a setup name loads, read from the config's folder; a package's name loads none. */
function setupFile(ws: WorkspacePort, config: string, name: string): Promise<string | undefined> {
  const relative = name.replace(/^<rootDir>\//, './');
  if (relative.startsWith('/')) return Promise.resolve(undefined);
  return relativeModuleFile(ws, config, /^\.{1,2}\//.test(relative) ? relative : `./${relative}`);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
