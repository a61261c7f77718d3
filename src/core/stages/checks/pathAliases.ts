import type { WorkspacePort } from '../../ports/workspace';

/** One import alias: `@/*` → `src/*`, or an exact name; targets are workspace paths with the `*`. */
export interface PathAlias {
  prefix: string;
  suffix: string;
  wildcard: boolean;
  targets: string[];
}

/** Joins workspace-relative path segments, resolving `.` and `..` (never above the root). */
export function joinPath(dir: string, spec: string): string {
  const parts = dir.split('/').filter(Boolean);
  for (const p of spec.split('/')) {
    if (p === '..') parts.pop();
    else if (p !== '.' && p !== '') parts.push(p);
  }
  return parts.join('/');
}

/**
 * The aliases an import may go through besides a relative path: the root tsconfig.json's
 * `paths` (following relative `extends`), and package.json's `imports` (`#name/*`). An ESM
 * project imports most of its own code this way; a link missed here makes a change look as if
 * it reached nothing, and the type-check gate would not count the errors it causes.
 */
export async function loadPathAliases(ws: WorkspacePort): Promise<PathAlias[]> {
  return [...(await tsconfigPaths(ws, 'tsconfig.json', 0)), ...(await packageImports(ws))];
}

/** The alias targets a bare specifier maps to (none when no alias matches). */
export function aliasTargets(aliases: readonly PathAlias[], spec: string): string[] {
  const out: string[] = [];
  for (const a of aliases) {
    if (
      a.wildcard
        ? spec.length >= a.prefix.length + a.suffix.length && spec.startsWith(a.prefix) && spec.endsWith(a.suffix)
        : spec === a.prefix
    ) {
      const middle = a.wildcard ? spec.slice(a.prefix.length, spec.length - a.suffix.length) : '';
      out.push(...a.targets.map((t) => t.replace('*', middle)));
    }
  }
  return out;
}

async function tsconfigPaths(ws: WorkspacePort, file: string, depth: number): Promise<PathAlias[]> {
  const json = await readJsonc(ws, file);
  if (!isRecord(json) || depth > 5) return [];
  const dir = file.split('/').slice(0, -1).join('/');
  const options = isRecord(json.compilerOptions) ? json.compilerOptions : {};
  const paths = isRecord(options.paths) ? options.paths : undefined;
  // A config without its own paths inherits them from the one it extends.
  if (!paths) {
    const parent =
      typeof json.extends === 'string' && json.extends.startsWith('.')
        ? joinPath(dir, json.extends.endsWith('.json') ? json.extends : `${json.extends}.json`)
        : undefined;
    return parent ? tsconfigPaths(ws, parent, depth + 1) : [];
  }
  const base = joinPath(dir, typeof options.baseUrl === 'string' ? options.baseUrl : '.');
  return Object.entries(paths).map(([pattern, targets]) =>
    alias(
      pattern,
      (Array.isArray(targets) ? targets : []).filter((t): t is string => typeof t === 'string').map((t) => joinPath(base, t)),
    ),
  );
}

async function packageImports(ws: WorkspacePort): Promise<PathAlias[]> {
  const json = await readJsonc(ws, 'package.json');
  if (!isRecord(json) || !isRecord(json.imports)) return [];
  return Object.entries(json.imports).map(([pattern, target]) =>
    alias(
      pattern,
      leafTargets(target).map((t) => joinPath('', t)),
    ),
  );
}

/** A conditional target's file paths, whatever the condition: any of them may be the source. */
export function leafTargets(target: unknown): string[] {
  if (typeof target === 'string') return target.startsWith('./') ? [target] : [];
  if (Array.isArray(target)) return target.flatMap(leafTargets);
  return isRecord(target) ? Object.values(target).flatMap(leafTargets) : [];
}

function alias(pattern: string, targets: string[]): PathAlias {
  const star = pattern.indexOf('*');
  return star < 0
    ? { prefix: pattern, suffix: '', wildcard: false, targets }
    : { prefix: pattern.slice(0, star), suffix: pattern.slice(star + 1), wildcard: true, targets };
}

/** tsconfig files allow comments and trailing commas; an unreadable one gives no aliases. */
async function readJsonc(ws: WorkspacePort, file: string): Promise<unknown> {
  const text = await ws.readFile(file);
  if (text === null) return undefined;
  try {
    return parseJsonc(text);
  } catch {
    return undefined;
  }
}

/** JSON with comments and trailing commas (tsconfig, .mocharc.jsonc); throws on anything else. */
export function parseJsonc(text: string): unknown {
  const plain = text
    .replace(/"(?:\\.|[^"\\])*"|\/\/[^\n]*|\/\*[\s\S]*?\*\//g, (m) => (m.startsWith('"') ? m : ''))
    .replace(/,(\s*[}\]])/g, '$1');
  return JSON.parse(plain) as unknown;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
