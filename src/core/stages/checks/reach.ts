import type { WorkspacePort } from '../../ports/workspace';
import { packageBySpecifier, workspacePackages, type WorkspacePackage } from '../common/workspacePackages';
import { aliasTargets, joinPath, leafTargets, loadPathAliases, type PathAlias } from './pathAliases';
import { parsePackageJson, type PackageJson } from '../../schema/packageJson';
import { dirOf, isCodePath } from '../../schema/paths';

const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\brequire\s*\(\s*)['"]([^'"\n]+)['"]/g;
/** A load whose argument is not one string literal: what it loads is known only when it runs. */
const COMPUTED_LOAD = /(?:\bimport|(?<![\w$])require)\s*\(\s*(?!['"][^'"\n]*['"]\s*[,)])(?=\S)/;
const EXTENSIONS = ['', '.ts', '.tsx', '.d.ts', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs', '/index.ts', '/index.tsx', '/index.js'];

/** A walk's answer: the file imports a changed one, it does not, or it cannot be told (why, in the user's words). */
export type Reach = boolean | { unknown: string };

/**
 * Answers "can this file see the change?": whether it imports a changed file, directly or
 * through other workspace files. The project-wide type-check blames the ticket only for errors
 * in such files; an error elsewhere was there before the run. Relative specifiers are followed,
 * the aliases of tsconfig `paths` and package.json `imports`, and in an npm-workspaces monorepo
 * the other packages by name: importing a package reaches every changed file of it (its public
 * API is whatever its entry re-exports, and a change anywhere in it may alter that). A link
 * still missed (a bundler-only alias) makes an error the change caused look unrelated.
 *
 * `asked`: `run` when the question is what running the file loads (which tests to run), not what
 * its types see (`types`): a module loaded by a computed name may then be any file, and the answer
 * is unknown.
 */
export class ImportReach {
  private readonly imports = new Map<string, Promise<Scan>>();
  private aliases: Promise<PathAlias[]> | undefined;
  private packages: Promise<WorkspacePackage[]> | undefined;

  constructor(
    private readonly workspace: WorkspacePort,
    private readonly changed: ReadonlySet<string>,
    private readonly asked: 'types' | 'run' = 'types',
  ) {}

  /** Past `maxFiles` files the walk stops, and a file it did not read may be the one that imports the change. */
  async reaches(file: string, maxFiles = 500): Promise<Reach> {
    if (this.changed.has(file)) return true;
    const seen = new Set([file]);
    const queue = [file];
    let computed: string | undefined;
    while (queue.length) {
      if (seen.size > maxFiles) return { unknown: `${file} imports more than ${maxFiles} files` };
      const current = queue.shift()!;
      const scan = await this.importsOf(current);
      if (scan.computed && !computed) computed = current;
      for (const next of scan.files) {
        if (this.changed.has(next)) return true;
        if (!seen.has(next)) {
          seen.add(next);
          queue.push(next);
        }
      }
    }
    return computed && this.asked === 'run' ? { unknown: `${computed} loads modules by a computed name` } : false;
  }

  private importsOf(file: string): Promise<Scan> {
    let found = this.imports.get(file);
    if (!found) {
      found = this.scan(file);
      this.imports.set(file, found);
    }
    return found;
  }

  private async scan(file: string): Promise<Scan> {
    const text = await this.workspace.readFile(file);
    if (text === null) return { files: [], computed: false };
    const out: string[] = [];
    this.aliases ??= loadPathAliases(this.workspace);
    const aliases = await this.aliases;
    for (const m of text.matchAll(SPECIFIER)) {
      const spec = m[1]!;
      const relative = /^\.{1,2}\//.test(spec);
      const bases = relative ? [joinPath(file.split('/').slice(0, -1).join('/'), spec)] : aliasTargets(aliases, spec);
      if (!relative && !bases.length) {
        this.packages ??= workspacePackages(this.workspace);
        const named = packageBySpecifier(await this.packages, spec);
        if (named) {
          out.push(...[...this.changed].filter((c) => c.startsWith(`${named.pkg.dir}/`)));
          bases.push(...(await this.packageEntries(named.pkg, named.subpath)));
        }
      }
      for (const stem of bases.flatMap(importStems)) {
        const hit = await firstModuleFile(stem, (c) => this.changed.has(c) || this.workspace.exists(c));
        if (hit) {
          out.push(hit);
          break;
        }
      }
    }
    return { files: out, computed: COMPUTED_LOAD.test(text) };
  }

  /** Where a package's entry for `subpath` may be: its `exports`, `types` and `main`, with each `dist/` also tried as `src/`. */
  private async packageEntries(pkg: WorkspacePackage, subpath: string): Promise<string[]> {
    let json: PackageJson = {};
    try {
      json = parsePackageJson((await this.workspace.readFile(`${pkg.dir}/package.json`)) ?? '{}');
    } catch {
      // An unreadable manifest names no entry; the changed files of the package still count.
    }
    const exportsField = json.exports;
    const targets: string[] = [];
    if (
      typeof exportsField === 'object' &&
      exportsField !== null &&
      !Array.isArray(exportsField) &&
      Object.keys(exportsField).some((k) => k.startsWith('.'))
    ) {
      targets.push(...leafTargets((exportsField as Record<string, unknown>)[subpath]));
    } else if (subpath === '.') {
      targets.push(...leafTargets(exportsField));
    }
    if (subpath === '.')
      targets.push(
        ...[json.types, json.typings, json.module, json.main].filter((t): t is string => typeof t === 'string'),
        './src/index',
        './index',
      );
    else targets.push(subpath);
    const paths = targets.map((t) => joinPath(pkg.dir, t));
    return [
      ...new Set(
        paths.flatMap((p) => (/(^|\/)dist\//.test(p) ? [p, p.replace(/(^|\/)dist\//, '$1src/').replace(/\.d\.([cm]?)ts$/, '.$1ts')] : [p])),
      ),
    ];
  }
}

/** What one file imports, and whether it also loads a module by a computed name. */
interface Scan {
  files: string[];
  computed: boolean;
}

/** Node16 and bundler-style imports name the emitted .js of a .ts source: the stems to try, the source first. */
const importStems = (base: string): string[] => (/\.[cm]?jsx?$/.test(base) ? [base.replace(/\.([cm]?)js(x?)$/, '.$1ts$2'), base] : [base]);

/** The file an import of `stem` loads: the stem itself or with a source extension, or its folder's index. */
async function firstModuleFile(stem: string, exists: (path: string) => boolean | Promise<boolean>): Promise<string | undefined> {
  for (const ext of EXTENSIONS) {
    const candidate = stem + ext;
    // A folder "exists" too: only a file with a source extension is an import target.
    if ((await exists(candidate)) && (ext !== '' || isCodePath(candidate))) return candidate;
  }
  return undefined;
}

/**
 * The workspace file a relative import names from `importer` (`../src/slug` from
 * `test/slug.test.ts` is `src/slug.ts`), or undefined when there is none or the specifier names a
 * package.
 */
export async function relativeModuleFile(workspace: WorkspacePort, importer: string, spec: string): Promise<string | undefined> {
  if (!/^\.{1,2}\//.test(spec)) return undefined;
  for (const stem of importStems(joinPath(dirOf(importer), spec))) {
    const hit = await firstModuleFile(stem, (c) => workspace.exists(c));
    if (hit) return hit;
  }
  return undefined;
}
