import ts from 'typescript';
import { introduced } from '../../core/stages/ops/introduced';
import { newDocumentRegistry, WorkspaceHost } from '../diagnostics/workspaceHost';
import { absolutePath, workspacePath } from '../workspacePaths';

/**
 * A WorkspaceHost whose files can be replaced in memory for a moment: an op's result is
 * checked by the language service before a byte of it is written.
 */
class TrialHost extends WorkspaceHost {
  private readonly overlay = new Map<string, string>();

  override text(file: string): string | undefined {
    return this.overlay.get(file) ?? super.text(file);
  }

  override fileExists(file: string): boolean {
    return this.overlay.has(file) || super.fileExists(file);
  }

  setOverlay(files: ReadonlyMap<string, string>): void {
    for (const [file, text] of files) {
      this.overlay.set(file, text);
      this.touch(file);
      // A file the op creates is not on disk yet: it is in the program while the trial lasts.
      if (this.isSource(file)) this.addRoot(file);
    }
  }

  clearOverlay(): void {
    const files = [...this.overlay.keys()];
    this.overlay.clear();
    for (const file of files) this.touch(file);
  }
}

/** A TypeScript error, workspace-relative. `start` is an offset in the text the service saw. */
export interface TsError {
  file: string;
  start: number;
  line: number;
  code: number;
  message: string;
}

/**
 * The ops' own in-process LanguageService. It is separate from the diagnostics adapter's:
 * the ops try edits in memory, which must never leak into what the checks report. The two may
 * share a DocumentRegistry: a file's version is its text's hash, so a trial edit is a file of its
 * own in the registry, which the diagnostics' program never takes.
 */
export class OpsLanguage {
  readonly host: TrialHost;
  readonly service: ts.LanguageService;

  constructor(
    readonly root: string,
    options: { tsconfig?: string; libDir?: string; interrupted?: () => boolean; registry?: ts.DocumentRegistry } = {},
  ) {
    this.host = new TrialHost(
      absolutePath(root, '.'),
      absolutePath(root, options.tsconfig ?? 'tsconfig.json'),
      options.libDir,
      options.interrupted,
    );
    this.service = ts.createLanguageService(this.host, options.registry ?? newDocumentRegistry(root));
  }

  abs(path: string): string {
    return absolutePath(this.root, path);
  }

  rel(file: string): string {
    return workspacePath(this.root, file);
  }

  /** A file of the workspace the run may edit: not a library, not outside the root. */
  isWorkspaceFile(file: string): boolean {
    const rel = this.rel(file);
    return !rel.startsWith('/') && !/^[A-Za-z]:/.test(rel) && !rel.split('/').includes('node_modules');
  }

  /**
   * Catches up with the disk before an op: tsconfig's file list (a file may have been created
   * since) and every file written since the service last read it (by an earlier op, say).
   */
  refresh(file: string): void {
    this.host.loadConfig();
    for (const f of this.host.getScriptFileNames()) this.host.syncFromDisk(f);
    // A file outside tsconfig's list is still the op's target: make it a root.
    if (!this.host.getScriptFileNames().includes(file)) this.host.touch(file);
  }

  text(file: string): string | undefined {
    return this.host.text(file);
  }

  /** The errors of `files` (syntactic and semantic) as the service sees them now. */
  errors(files: readonly string[]): TsError[] {
    const out: TsError[] = [];
    for (const file of files) {
      for (const d of [...this.service.getSyntacticDiagnostics(file), ...this.service.getSemanticDiagnostics(file)]) {
        if (d.category !== ts.DiagnosticCategory.Error) continue;
        const start = d.start ?? 0;
        out.push({
          file: this.rel(file),
          start,
          line: (d.file?.getLineAndCharacterOfPosition(start).line ?? 0) + 1,
          code: d.code,
          message: ts.flattenDiagnosticMessageText(d.messageText, '\n'),
        });
      }
    }
    return out;
  }

  /** Runs `look` with `files` (absolute path to text) in place of the disk, then puts the disk back. */
  trial<T>(files: ReadonlyMap<string, string>, look: () => T): T {
    this.host.setOverlay(files);
    try {
      return look();
    } finally {
      this.host.clearOverlay();
    }
  }

  dispose(): void {
    this.service.dispose();
  }
}

/** The errors in `after` that `before` did not have, by file, code and message. */
export const newErrors = (before: readonly TsError[], after: readonly TsError[]): TsError[] =>
  introduced(before, after, (e) => `${e.file}\0${e.code}\0${e.message}`);

export const describeError = (e: TsError): string => `${e.file}:${e.line} TS${e.code}: ${e.message}`;
