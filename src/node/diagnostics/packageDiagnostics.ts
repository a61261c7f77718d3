import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { DiagnosticsPort, SymbolEntry } from '../../core/ports/checks';
import type { AppliedFix, CodeDiagnostic } from '../../core/schema/checks';
import { dependentsOf, packageOf, workspacePackages, type WorkspacePackage } from '../../core/stages/common/workspacePackages';
import { FsWorkspace } from '../workspace/fsWorkspace';
import { HEADLESS } from './judges';
import { declaresWorkspaces, hasTypeScriptProject } from './tsProject';
import { LanguageServiceDiagnostics, newDocumentRegistry, type AllowFix, type LanguageServiceDiagnosticsOptions } from './languageService';

/**
 * The headless DiagnosticsPort for a workspace: one language service over the root's
 * tsconfig.json, or in an npm-workspaces monorepo one per package over the package's own
 * tsconfig.json (what its compiler options say is an error is what counts). Undefined when
 * there is nothing to type-check.
 */
export function createWorkspaceDiagnostics(
  root: string,
  options: Omit<LanguageServiceDiagnosticsOptions, 'tsconfig'> = {},
): DiagnosticsPort | undefined {
  return hasTypeScriptProject(root) ? projectDiagnostics(root, options) : undefined;
}

/** The language service of createWorkspaceDiagnostics, for a workspace that has a project. */
export function projectDiagnostics(
  root: string,
  options: Omit<LanguageServiceDiagnosticsOptions, 'tsconfig'> = {},
): LanguageServiceDiagnostics | PackageDiagnostics {
  return declaresWorkspaces(root) ? new PackageDiagnostics(root, options) : new LanguageServiceDiagnostics(root, options);
}

type Checked = { checkedFiles: string[]; diagnostics: CodeDiagnostic[]; checkedBy?: string };

/**
 * A language service per package, each made when a file of its package is first checked. A
 * change in a library is also checked from every package that depends on it: the errors in
 * their files that import the library are the change's too (an exported type changed under
 * them), though the library's own project never sees those files.
 */
export class PackageDiagnostics implements DiagnosticsPort {
  private readonly services = new Map<string, LanguageServiceDiagnostics>();
  private packages: Promise<WorkspacePackage[]> | undefined;
  private registry: ReturnType<typeof newDocumentRegistry> | undefined;

  constructor(
    private readonly root: string,
    private readonly options: Omit<LanguageServiceDiagnosticsOptions, 'tsconfig'>,
  ) {}

  async check(changed: string[], signal: AbortSignal): Promise<Checked> {
    const packages = await this.loadPackages();
    const results: Checked[] = [];
    for (const [dir, files] of this.group(packages, changed)) results.push(await this.service(dir).check(files, signal));
    const touched = [...new Set(changed.map((f) => packageOf(packages, f)).filter((p): p is WorkspacePackage => p !== undefined))];
    for (const lib of touched) {
      const files = changed.filter((f) => f.startsWith(`${lib.dir}/`));
      for (const dependent of dependentsOf(packages, [lib]))
        results.push(await this.service(dependent.dir).checkImporters(files, lib.dir, signal));
    }
    const seen = new Set<string>();
    return {
      checkedBy: `${HEADLESS}, one per package`,
      checkedFiles: [...new Set(results.flatMap((r) => r.checkedFiles))],
      diagnostics: results
        .flatMap((r) => r.diagnostics)
        .filter((d) => {
          const key = `${d.file}:${d.line}:${d.column}:${d.code}:${d.message}`;
          return seen.has(key) ? false : (seen.add(key), true);
        }),
    };
  }

  async autofix(files: string[], allow: AllowFix, signal: AbortSignal): Promise<{ applied: AppliedFix[]; refused: AppliedFix[] }> {
    const applied: AppliedFix[] = [];
    const refused: AppliedFix[] = [];
    for (const [dir, group] of this.group(await this.loadPackages(), files)) {
      const r = await this.service(dir).autofix(group, allow, signal);
      applied.push(...r.applied);
      refused.push(...r.refused);
    }
    return { applied, refused };
  }

  async probe(
    path: string,
    content: string,
    signal: AbortSignal,
    overlays?: readonly { path: string; content: string }[],
  ): Promise<CodeDiagnostic[]> {
    return (await this.serviceOf(path)).probe(path, content, signal, overlays);
  }

  async resolveSymbol(file: string, symbol: string): Promise<string | null> {
    return (await this.serviceOf(file)).resolveSymbol(file, symbol);
  }

  async symbolsOf(file: string, owner?: string): Promise<SymbolEntry[]> {
    return (await this.serviceOf(file)).symbolsOf(file, owner);
  }

  dispose(): void {
    for (const s of this.services.values()) s.dispose();
    this.services.clear();
  }

  private loadPackages(): Promise<WorkspacePackage[]> {
    this.packages ??= workspacePackages(new FsWorkspace(this.root));
    return this.packages;
  }

  /** The files by the folder whose tsconfig judges them: their package's, or the root's. */
  private group(packages: readonly WorkspacePackage[], files: readonly string[]): Map<string, string[]> {
    const groups = new Map<string, string[]>();
    for (const f of files) {
      const dir = this.projectDir(packageOf(packages, f));
      groups.set(dir, [...(groups.get(dir) ?? []), f]);
    }
    return groups;
  }

  private async serviceOf(file: string): Promise<LanguageServiceDiagnostics> {
    return this.service(this.projectDir(packageOf(await this.loadPackages(), file)));
  }

  /** A package without a tsconfig.json of its own is judged by the root's. */
  private projectDir(pkg: WorkspacePackage | undefined): string {
    return pkg && existsSync(join(this.root, pkg.dir, 'tsconfig.json')) ? pkg.dir : '';
  }

  private service(dir: string): LanguageServiceDiagnostics {
    let s = this.services.get(dir);
    if (!s) {
      // The packages' services parse lib.d.ts and the shared types once, for all of them.
      this.registry ??= this.options.registry ?? newDocumentRegistry();
      s = new LanguageServiceDiagnostics(this.root, {
        ...this.options,
        registry: this.registry,
        tsconfig: dir ? `${dir}/tsconfig.json` : 'tsconfig.json',
      });
      this.services.set(dir, s);
    }
    return s;
  }
}
