import { existsSync, readFileSync } from 'node:fs';
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

/** The gate itself (TscTypeCheck) on a copy of `root` whose node_modules holds the given typescript. */
async function gateRun(root: string): Promise<{ ms: number; version: string }> {
  const result = await new TscTypeCheck({ root, nodePath: process.execPath }).check(new AbortController().signal);
  // A repo that does not type-check would time error reporting, not checking.
  if (result.status !== 'passed') throw new Error(`the type-check gate ${result.status} on the generated repo: ${result.detail}`);
  return { ms: result.durationMs, version: result.tool?.version ?? 'unknown' };
}

/**
 * The end-of-ticket type-check gate on the 100k-line repo, run by TscTypeCheck exactly as a
 * ticket runs it, once with the workspace's TypeScript 5 and once with TypeScript 7's native
 * compiler, alternating so a change in the machine's load lands on both.
 */
export async function measureTypeCheckGate(ownRoot: string, nativeRoot: string | null, lines: number, runs: number): Promise<TypeCheckGateFigures> {
  const own: number[] = [];
  const native: number[] = [];
  let ownVersion = 'unknown';
  let nativeVersion = 'unknown';
  for (let k = 0; k < runs; k++) {
    const o = await gateRun(ownRoot);
    own.push(o.ms);
    ownVersion = o.version;
    if (nativeRoot) {
      const n = await gateRun(nativeRoot);
      native.push(n.ms);
      nativeVersion = n.version;
    }
  }
  const ownTimes = { label: `tsc ${ownVersion} (JavaScript)`, version: ownVersion, runsMs: own, medianMs: median(own) };
  const nativeTimes = nativeRoot ? { label: `tsc ${nativeVersion} (native)`, version: nativeVersion, runsMs: native, medianMs: median(native) } : null;
  return {
    lines,
    own: ownTimes,
    native: nativeTimes,
    ratio: nativeTimes ? nativeTimes.medianMs / ownTimes.medianMs : null,
    ...(nativeRoot ? {} : { nativeMissing: 'TypeScript 7 is not installed: bash scripts/install-typescript-native.sh (npm run bench runs it first)' }),
  };
}

/** Where scripts/install-typescript-native.sh put TypeScript 7 (npm run bench's prebench), or null. */
export function nativeTypeScriptDir(repoRoot: string): string | null {
  const cache = process.env.TYPESCRIPT_NATIVE_DIR ?? path.join(repoRoot, '.vscode-test', 'typescript-native');
  const dir = path.join(cache, 'node_modules', 'typescript');
  if (!existsSync(path.join(dir, 'package.json'))) return null;
  const version = (JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { version: string }).version;
  return Number(version.split('.')[0]) >= 7 ? dir : null;
}
