import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import * as path from 'node:path';
import { TscTypeCheck } from '../src/node/gates/tscTypeCheck';
import { median } from './measure';

export interface CompilerTimes {
  label: string;
  version: string;
  runsMs: number[];
  medianMs: number;
}

export interface TypeCheckGateFigures {
  lines: number;
  /** The workspace's own tsc (this repo's typescript, linked into the generated repo). */
  own: CompilerTimes;
  /** TypeScript 7's native tsc, when scripts/install-typescript-native.sh installed it. */
  native: CompilerTimes | null;
  /** native / own: below 1, the native compiler is faster. */
  ratio: number | null;
  nativeMissing?: string;
}

/** The gate itself (TscTypeCheck), exactly as a ticket runs it, on the repo at `root`. */
async function gateRun(root: string): Promise<{ ms: number; version: string }> {
  const result = await new TscTypeCheck({ root, nodePath: process.execPath }).check(new AbortController().signal);
  // A repo that does not type-check would time error reporting, not checking.
  if (result.status !== 'passed') throw new Error(`the type-check gate ${result.status} on the generated repo: ${result.detail}`);
  return { ms: result.durationMs, version: result.tool?.version ?? 'unknown' };
}

/** Points the repo's node_modules link at `target`: the gate then finds that TypeScript as the project's own. */
function linkNodeModules(root: string, target: string): void {
  const link = path.join(root, 'node_modules');
  rmSync(link, { force: true });
  symlinkSync(target, link, 'dir');
}

/**
 * The type-check gate on one repo with two compilers: the workspace's own TypeScript and
 * TypeScript 7's native one, swapped in through the repo's node_modules link, so both check
 * the same bytes one right after the other. `full()` is one round (own, then native) and
 * returns the own time: check latency uses it as its full check, so the 100k repo is checked
 * in full only as often as both figures need.
 */
export function typeCheckRounds(root: string, ownNodeModules: string, nativeNodeModules: string | null) {
  const own: number[] = [];
  const native: number[] = [];
  let ownVersion = 'unknown';
  let nativeVersion = 'unknown';
  const full = async (): Promise<number> => {
    linkNodeModules(root, ownNodeModules);
    const o = await gateRun(root);
    own.push(o.ms);
    ownVersion = o.version;
    if (nativeNodeModules) {
      linkNodeModules(root, nativeNodeModules);
      try {
        const n = await gateRun(root);
        native.push(n.ms);
        nativeVersion = n.version;
      } finally {
        linkNodeModules(root, ownNodeModules);
      }
    }
    return o.ms;
  };
  const figures = (lines: number): TypeCheckGateFigures => {
    const ownTimes = { label: `tsc ${ownVersion} (JavaScript)`, version: ownVersion, runsMs: own, medianMs: median(own) };
    const nativeTimes = native.length ? { label: `tsc ${nativeVersion} (native)`, version: nativeVersion, runsMs: native, medianMs: median(native) } : null;
    return {
      lines,
      own: ownTimes,
      native: nativeTimes,
      ratio: nativeTimes ? nativeTimes.medianMs / ownTimes.medianMs : null,
      ...(nativeTimes ? {} : { nativeMissing: 'TypeScript 7 is not installed: bash scripts/install-typescript-native.sh (npm run bench runs it first)' }),
    };
  };
  return { full, figures };
}

/**
 * A node_modules for the native runs whose `typescript` is TypeScript 7, beside the same
 * @types the repo's own node_modules has.
 */
export function nativeNodeModules(base: string, nativeDir: string, ownNodeModules: string): string {
  const dir = path.join(base, 'native-node_modules');
  mkdirSync(dir, { recursive: true });
  symlinkSync(nativeDir, path.join(dir, 'typescript'), 'dir');
  symlinkSync(path.join(ownNodeModules, '@types'), path.join(dir, '@types'), 'dir');
  return dir;
}

/** Where scripts/install-typescript-native.sh put TypeScript 7 (npm run bench's prebench), or null. */
export function nativeTypeScriptDir(repoRoot: string): string | null {
  const cache = process.env.TYPESCRIPT_NATIVE_DIR ?? path.join(repoRoot, '.vscode-test', 'typescript-native');
  const dir = path.join(cache, 'node_modules', 'typescript');
  if (!existsSync(path.join(dir, 'package.json'))) return null;
  const version = (JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { version: string }).version;
  return Number(version.split('.')[0]) >= 7 ? dir : null;
}
