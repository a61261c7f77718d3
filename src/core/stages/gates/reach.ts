import type { WorkspacePort } from '../../ports/workspace';
import { aliasTargets, joinPath, loadPathAliases, type PathAlias } from './pathAliases';

const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\brequire\s*\(\s*)['"]([^'"\n]+)['"]/g;
const EXTENSIONS = ['', '.ts', '.tsx', '.d.ts', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs', '/index.ts', '/index.tsx', '/index.js'];

/**
 * Answers "can this file see the change?": whether it imports a changed file, directly or
 * through other workspace files. The project-wide type-check blames the ticket only for errors
 * in such files; an error elsewhere was there before the run. Relative specifiers are followed,
 * and the aliases of tsconfig `paths` and package.json `imports`; a link still missed (a
 * bundler-only alias) makes an error the change caused look unrelated.
 */
export class ImportReach {
  private readonly imports = new Map<string, Promise<string[]>>();
  private aliases: Promise<PathAlias[]> | undefined;

  constructor(
    private readonly workspace: WorkspacePort,
    private readonly changed: ReadonlySet<string>,
  ) {}

  async reaches(file: string, maxFiles = 500): Promise<boolean> {
    if (this.changed.has(file)) return true;
    const seen = new Set([file]);
    const queue = [file];
    while (queue.length && seen.size <= maxFiles) {
      for (const next of await this.importsOf(queue.shift()!)) {
        if (this.changed.has(next)) return true;
        if (!seen.has(next)) {
          seen.add(next);
          queue.push(next);
        }
      }
    }
    return false;
  }

  private importsOf(file: string): Promise<string[]> {
    let found = this.imports.get(file);
    if (!found) {
      found = this.scan(file);
      this.imports.set(file, found);
    }
    return found;
  }

  private async scan(file: string): Promise<string[]> {
    const text = await this.workspace.readFile(file);
    if (text === null) return [];
    const out: string[] = [];
    this.aliases ??= loadPathAliases(this.workspace);
    const aliases = await this.aliases;
    for (const m of text.matchAll(SPECIFIER)) {
      const spec = m[1]!;
      const bases = /^\.{1,2}\//.test(spec) ? [joinPath(file.split('/').slice(0, -1).join('/'), spec)] : aliasTargets(aliases, spec);
      // Node16 and bundler-style imports name the emitted .js of a .ts source.
      const stems = bases.flatMap((base) => (/\.[cm]?jsx?$/.test(base) ? [base.replace(/\.([cm]?)js(x?)$/, '.$1ts$2'), base] : [base]));
      for (const stem of stems) {
        const hit = await this.firstExisting(stem);
        if (hit) {
          out.push(hit);
          break;
        }
      }
    }
    return out;
  }

  private async firstExisting(stem: string): Promise<string | undefined> {
    for (const ext of EXTENSIONS) {
      const candidate = stem + ext;
      if (this.changed.has(candidate) || (await this.workspace.exists(candidate))) {
        // A folder "exists" too: only a file with a source extension is an import target.
        if (ext !== '' || /\.[cm]?[jt]sx?$/.test(candidate)) return candidate;
      }
    }
    return undefined;
  }
}
