import type { WorkspacePort } from '../../ports/workspace';

const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\brequire\s*\(\s*)['"](\.{1,2}\/[^'"]*)['"]/g;
const EXTENSIONS = ['', '.ts', '.tsx', '.d.ts', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs', '/index.ts', '/index.tsx', '/index.js'];

function join(fromFile: string, spec: string): string {
  const parts = fromFile.split('/').slice(0, -1);
  for (const p of spec.split('/')) {
    if (p === '..') parts.pop();
    else if (p !== '.' && p !== '') parts.push(p);
  }
  return parts.join('/');
}

/**
 * Answers "can this file see the change?": whether it imports a changed file, directly or
 * through other workspace files. The project-wide type-check blames the ticket only for errors
 * in such files; an error elsewhere was there before the run. Only relative specifiers are
 * followed (a tsconfig `paths` alias is not): a missed link costs a missed failure, never a
 * wrong one.
 */
export class ImportReach {
  private readonly imports = new Map<string, Promise<string[]>>();

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
    for (const m of text.matchAll(SPECIFIER)) {
      const base = join(file, m[1]!);
      // Node16 and bundler-style imports name the emitted .js of a .ts source.
      const stems = /\.[cm]?jsx?$/.test(base) ? [base.replace(/\.([cm]?)js(x?)$/, '.$1ts$2'), base] : [base];
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
