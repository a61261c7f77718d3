import type { WorkspacePort } from '../../ports/workspace';
import { dirOf, isCodePath, relPathOrNone } from '../../schema/paths';

/** A workspace file a test imports, and whether it is there yet. */
export interface ImportedFile {
  path: string;
  exists: boolean;
}

/**
 * The workspace files a test file's specifiers name (`outlineTest(text).imports`), in order: one
 * not written yet included, packages and paths out of the workspace left out.
 */
export async function importedFiles(
  workspace: Pick<WorkspacePort, 'exists'>,
  testPath: string,
  specifiers: readonly string[],
): Promise<ImportedFile[]> {
  const files: ImportedFile[] = [];
  for (const spec of specifiers) {
    const file = await resolveImport(workspace, testPath, spec);
    if (file && !files.some((f) => f.path === file.path)) files.push(file);
  }
  return files;
}

/** The extensions a specifier without one is tried with, TypeScript's first, as the project's resolution does. */
const EXTENSIONS = ['.ts', '.tsx', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs'];
/** An emitted extension written in a specifier (NodeNext, ESM) and the source extension it stands for. */
const SOURCE_OF: Record<string, string> = { '.js': '.ts', '.jsx': '.tsx', '.mjs': '.mts', '.cjs': '.cts' };

/**
 * The workspace file a relative specifier names, and whether it exists: the TypeScript source of
 * an emitted extension, the path as written, the path with each extension, then its folder's index. A specifier that
 * names nothing yet is the module as the test's language would write it. A package, or a path
 * out of the workspace, is no file of it.
 */
async function resolveImport(workspace: Pick<WorkspacePort, 'exists'>, testPath: string, spec: string): Promise<ImportedFile | undefined> {
  if (!/^\.\.?(\/|$)/.test(spec)) return undefined;
  const base = relPathOrNone(`${dirOf(testPath)}/${spec}`);
  if (!base) return undefined;
  const ext = /\.[^./]+$/.exec(base)?.[0];
  const stem = ext && SOURCE_OF[ext] ? base.slice(0, -ext.length) : undefined;
  const candidates = [
    ...(stem ? [stem + SOURCE_OF[ext!]!] : []),
    ...(ext ? [base] : []),
    ...EXTENSIONS.map((e) => base + e),
    ...EXTENSIONS.map((e) => `${base}/index${e}`),
  ];
  for (const path of candidates) if (await workspace.exists(path)) return { path, exists: true };
  const typescript = /\.[cm]?tsx?$/.test(testPath);
  if (stem) return { path: typescript ? stem + SOURCE_OF[ext!]! : base, exists: false };
  if (ext && !isCodePath(base)) return { path: base, exists: false };
  return { path: base + (typescript ? '.ts' : '.js'), exists: false };
}
