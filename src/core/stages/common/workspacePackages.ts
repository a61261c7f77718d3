import type { WorkspacePort } from '../../ports/workspace';

/**
 * The packages of an npm-workspaces monorepo (the root package.json's `workspaces`). In such a
 * workspace the package is the unit: a ticket's tests run in the package that holds them, with
 * its runner and config, and the type-check looks at the package of the scope and at every
 * package that depends on it, since a library's change can break its importers.
 */
export interface WorkspacePackage {
  /** Workspace-relative folder, no trailing slash. */
  dir: string;
  name: string;
  /** The names of the other workspace packages it declares as dependencies of any kind. */
  dependsOn: string[];
}

interface PackageJson {
  name?: unknown;
  workspaces?: unknown;
  dependencies?: unknown;
  devDependencies?: unknown;
  peerDependencies?: unknown;
  optionalDependencies?: unknown;
}

const loaded = new WeakMap<WorkspacePort, Promise<WorkspacePackage[]>>();

/** The workspace's packages; [] when the root declares no `workspaces`. Read once per workspace port. */
export function workspacePackages(ws: WorkspacePort): Promise<WorkspacePackage[]> {
  let found = loaded.get(ws);
  if (!found) {
    found = readPackages(ws);
    loaded.set(ws, found);
  }
  return found;
}

async function readJson(ws: WorkspacePort, path: string): Promise<PackageJson | undefined> {
  const text = await ws.readFile(path);
  if (text === null) return undefined;
  try {
    const json: unknown = JSON.parse(text);
    // Every field is `unknown` and checked where it is read: any object fits.
    return typeof json === 'object' && json !== null ? json : undefined;
  } catch {
    return undefined;
  }
}

/** `workspaces` is a list of globs, or (yarn's form, which npm reads too) `{ packages: [...] }`. */
function patternsOf(root: PackageJson | undefined): string[] {
  const w = root?.workspaces;
  const list = Array.isArray(w)
    ? w
    : typeof w === 'object' && w !== null && Array.isArray((w as { packages?: unknown }).packages)
      ? (w as { packages: unknown[] }).packages
      : [];
  return list.filter((p): p is string => typeof p === 'string').map((p) => p.replace(/^\.\//, '').replace(/\/+$/, ''));
}

/** A glob of folders: `*` matches one path segment, `**` any number of them. */
function globRegex(pattern: string): RegExp {
  const body = pattern
    .split('/')
    .map((seg) => (seg === '**' ? '(?:[^/]+/)*?[^/]+' : seg.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')))
    .join('/');
  return new RegExp(`^${body}$`);
}

async function readPackages(ws: WorkspacePort): Promise<WorkspacePackage[]> {
  const patterns = patternsOf(await readJson(ws, 'package.json'));
  if (!patterns.length) return [];
  const dirs = new Set<string>();
  for (const pattern of patterns) {
    const fixed = pattern.split('/').findIndex((seg) => seg.includes('*'));
    if (fixed < 0) {
      if (await ws.exists(`${pattern}/package.json`)) dirs.add(pattern);
      continue;
    }
    const base = pattern.split('/').slice(0, fixed).join('/');
    const match = globRegex(pattern);
    for (const file of await ws.listFiles(base)) {
      if (!file.endsWith('/package.json') || /(^|\/)node_modules\//.test(file)) continue;
      const dir = file.slice(0, -'/package.json'.length);
      if (match.test(dir)) dirs.add(dir);
    }
  }
  const manifests: { dir: string; json: PackageJson }[] = [];
  for (const dir of [...dirs].sort()) {
    const json = await readJson(ws, `${dir}/package.json`);
    if (json && typeof json.name === 'string') manifests.push({ dir, json });
  }
  const names = new Set(manifests.map((m) => m.json.name as string));
  return manifests.map(({ dir, json }) => {
    const declared = [json.dependencies, json.devDependencies, json.peerDependencies, json.optionalDependencies].flatMap((d) =>
      typeof d === 'object' && d !== null ? Object.keys(d) : [],
    );
    return { dir, name: json.name as string, dependsOn: [...new Set(declared.filter((n) => names.has(n)))].sort() };
  });
}

/** The package whose folder holds `path` (the innermost one), or undefined for a file outside every package. */
export function packageOf(packages: readonly WorkspacePackage[], path: string): WorkspacePackage | undefined {
  let best: WorkspacePackage | undefined;
  for (const p of packages) if (path.startsWith(`${p.dir}/`) && (!best || p.dir.length > best.dir.length)) best = p;
  return best;
}

/**
 * The packages that depend on any of `of`, directly or through other packages (not `of`
 * themselves). A change in a library can break each of them; none of them can break it.
 */
export function dependentsOf(packages: readonly WorkspacePackage[], of: readonly WorkspacePackage[]): WorkspacePackage[] {
  const reached = new Set(of.map((p) => p.name));
  const out: WorkspacePackage[] = [];
  for (let grew = true; grew;) {
    grew = false;
    for (const p of packages) {
      if (!reached.has(p.name) && p.dependsOn.some((d) => reached.has(d))) {
        reached.add(p.name);
        out.push(p);
        grew = true;
      }
    }
  }
  return out;
}

/** The package a bare import specifier names (`@mono/money`, `@mono/money/sub`), and the subpath after its name. */
export function packageBySpecifier(
  packages: readonly WorkspacePackage[],
  spec: string,
): { pkg: WorkspacePackage; subpath: string } | undefined {
  for (const pkg of packages) {
    if (spec === pkg.name) return { pkg, subpath: '.' };
    if (spec.startsWith(`${pkg.name}/`)) return { pkg, subpath: `./${spec.slice(pkg.name.length + 1)}` };
  }
  return undefined;
}
