import { access, readdir, readFile } from 'node:fs/promises';
import { extname, join, resolve } from 'node:path';
import { parsePackageJson } from '../../core/schema/packageJson';

/**
 * Whether node:test may load a workspace's TypeScript with tsx's CommonJS hook alone
 * (`--require tsx/cjs`) instead of `--import tsx`.
 *
 * Why: `--import tsx` also registers tsx's ES module hooks, which Node 20 runs in a thread of their
 * own in every test process, so tsx and esbuild load twice in each. node:test starts a process per
 * test file: on the blog fixture (five test files) a run costs about twice the CPU and twice the
 * wall time with `--import tsx`.
 *
 * Both run CommonJS code the same way, through the same transform. The CommonJS hook cannot load an
 * ES module written in TypeScript, nor any TypeScript file through `import()`: such a test would
 * fail under it and pass under the project's own command. So it is chosen only when nothing the
 * tests could load needs that: the workspace has a package.json of its own (so none above it
 * decides), no package.json outside node_modules says `"type": "module"`, no file is an `.mts` or
 * `.mjs`, and no source file holds `import(` (comments included: a false alarm only keeps
 * `--import tsx`). A workspace too large to read quickly keeps `--import tsx` too.
 */
export async function commonJsOnly(root: string, testFiles: readonly string[], signal?: AbortSignal): Promise<boolean> {
  if (testFiles.some((f) => ESM_EXTENSIONS.has(extname(f).toLowerCase()))) return false;
  const budget = { files: MAX_FILES };
  try {
    await access(join(root, 'package.json'));
    return await readDir(resolve(root), budget, signal);
  } catch {
    // A folder that cannot be read is one whose files were not all seen.
    return false;
  }
}

/** Beyond this many files (sources and package.json files), the workspace keeps `--import tsx`. */
export const MAX_FILES = 4000;

const ESM_EXTENSIONS = new Set(['.mts', '.mjs']);
const SOURCE_EXTENSIONS = new Set(['.ts', '.tsx', '.cts', '.js', '.jsx', '.cjs']);
/** Folders the tests never load from the workspace's own tree (packages come in through node_modules). */
const SKIPPED = new Set(['node_modules', '.git']);
const DYNAMIC_IMPORT = /\bimport\s*\(/;

async function readDir(dir: string, budget: { files: number }, signal?: AbortSignal): Promise<boolean> {
  if (signal?.aborted) return false;
  const entries = await readdir(dir, { withFileTypes: true });
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!SKIPPED.has(entry.name) && !(await readDir(path, budget, signal))) return false;
      continue;
    }
    if (!entry.isFile()) continue;
    const ext = extname(entry.name).toLowerCase();
    if (ESM_EXTENSIONS.has(ext)) return false;
    const manifest = entry.name === 'package.json';
    if (!manifest && !SOURCE_EXTENSIONS.has(ext)) continue;
    if (--budget.files < 0) return false;
    const text = await readFile(path, 'utf8');
    if (manifest ? declaresModule(text) : DYNAMIC_IMPORT.test(text)) return false;
  }
  return true;
}

/** A package.json that cannot be read as JSON counts as one that might say "module". */
function declaresModule(text: string): boolean {
  try {
    return parsePackageJson(text).type === 'module';
  } catch {
    return true;
  }
}
