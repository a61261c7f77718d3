import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import ts from 'typescript';
import { CancelledError } from '../../core/errors';
import type { DiagnosticsPort, SymbolEntry } from '../../core/ports/checks';
import type { AppliedFix, CodeDiagnostic } from '../../core/schema/checks';
import { absolutePath, workspacePath } from '../workspacePaths';
import { applyTextChanges, isWantedFix, STRUCTURAL_FIXES, rankFixes } from './codeFixes';
import { directImporters } from './importers';
import { HEADLESS } from './judges';
import { listSymbols, resolveSymbolType } from './resolveSymbol';
import { newDocumentRegistry, WorkspaceHost } from './workspaceHost';

export interface LanguageServiceDiagnosticsOptions {
  /** The tsconfig.json to read, relative to the root; the default is `tsconfig.json`. */
  tsconfig?: string;
  /** The fixes autofix may apply, by fixName or fixId; the default is STRUCTURAL_FIXES. */
  fixNames?: readonly string[];
  /** At most this many fixes per autofix call, so a fix that brings its error back cannot loop. */
  maxFixes?: number;
  /**
   * The folder of TypeScript's lib.*.d.ts files. By default TypeScript looks beside its own
   * typescript.js, which is wrong when it is bundled into another file.
   */
  libDir?: string;
  /**
   * A probe's file stays in the program after it answers, as the ticket being typed renders it:
   * the next probe of that file bumps only its version (nothing, when its text is the same), so
   * TypeScript reuses every other source file, and the queries between two probes (a `refs`
   * symbol's type) reuse the same program. Any other check takes it out first. For a service
   * that only answers a ticket's checks (`validate`, the ticket language server), never a run's.
   */
  keepProbes?: boolean;
  /** True when the call in progress was cancelled from another thread (the service in a worker). */
  interrupted?: () => boolean;
  /**
   * Parsed files shared with other services of this thread (the ops', the other packages'): each
   * file is parsed once for all the services that see the same text (see WorkspaceHost's versions).
   */
  registry?: ts.DocumentRegistry;
}

/** Whether a fix may touch a file; the worker's caller answers from its own thread, so it may take a turn. */
export type AllowFix = (path: string) => boolean | Promise<boolean>;

/** A registry for services of one thread that share parsed files (see LanguageServiceDiagnosticsOptions.registry). */
export { newDocumentRegistry };

/** The headless DiagnosticsPort over the workspace's tsconfig.json; call dispose() when done. */
export function createLanguageServiceDiagnostics(
  root: string,
  options: LanguageServiceDiagnosticsOptions = {},
): LanguageServiceDiagnostics {
  return new LanguageServiceDiagnostics(root, options);
}

/**
 * DiagnosticsPort over the TypeScript LanguageService, in the caller's thread (the wiring runs it
 * in a worker thread, `workers/languageWorker.ts`, with the same answers). `check` reports the changed
 * files and their direct importers (one level); unchanged files keep their versions, so the
 * service re-checks only what the change can affect.
 */
export class LanguageServiceDiagnostics implements DiagnosticsPort {
  private readonly host: WorkspaceHost;
  private readonly service: ts.LanguageService;
  private readonly fixable = new Set(ts.getSupportedCodeFixes().map(Number));
  private readonly wantedFixes: ReadonlySet<string>;
  private readonly configFile: string;
  private configReported = false;
  private lastProgram: ts.Program | undefined;
  /** The probe files kept in the program (keepProbes), by absolute path, with their text. */
  private readonly kept = new Map<string, string>();

  constructor(
    private readonly root: string,
    private readonly options: LanguageServiceDiagnosticsOptions = {},
  ) {
    this.configFile = absolutePath(root, options.tsconfig ?? 'tsconfig.json');
    this.host = new WorkspaceHost(absolutePath(root, '.'), this.configFile, options.libDir, options.interrupted);
    this.service = ts.createLanguageService(this.host, options.registry ?? newDocumentRegistry(this.root));
    this.wantedFixes = new Set(options.fixNames ?? STRUCTURAL_FIXES);
  }

  async check(changed: string[], signal: AbortSignal): Promise<{ checkedFiles: string[]; diagnostics: CodeDiagnostic[] }> {
    return this.cancellable(signal, async () => {
      this.dropKept();
      const files = changed.map((f) => absolutePath(this.root, f));
      // The old program still knows who imported a file that is now gone.
      const before = this.lastProgram;
      let reportConfig = !this.configReported;
      for (const file of files) {
        if (file === this.configFile) {
          this.host.loadConfig();
          reportConfig = true;
        } else this.host.touch(file);
      }
      this.configReported = true;
      const program = this.program();
      const targets = new Set(files.filter((f) => program.getSourceFile(f)));
      const importers = directImporters(program, new Set(files));
      if (before && files.some((f) => !program.getSourceFile(f))) {
        for (const f of directImporters(before, new Set(files))) if (program.getSourceFile(f)) importers.add(f);
      }
      const checked = [...targets, ...[...importers].filter((f) => !targets.has(f))];
      // A broken tsconfig.json is reported once, not blamed on every later change.
      const diagnostics: CodeDiagnostic[] = reportConfig ? this.host.configErrors.map((d) => this.toDiagnostic(d)) : [];
      for (const file of checked) {
        diagnostics.push(...this.diagnosticsOf(file).map((d) => this.toDiagnostic(d)));
        // The service is synchronous: yield between files so an abort can land.
        await nextTurn();
      }
      return { checkedFiles: checked.map((f) => workspacePath(this.root, f)), diagnostics, checkedBy: HEADLESS };
    });
  }

  /**
   * The errors in this project's files that import any file of `packageDir` (another package of
   * an npm-workspaces monorepo) directly, after `changed` (files of that package) changed. The
   * package's own files are not reported: its own project checks them.
   */
  async checkImporters(
    changed: string[],
    packageDir: string,
    signal: AbortSignal,
  ): Promise<{ checkedFiles: string[]; diagnostics: CodeDiagnostic[] }> {
    return this.cancellable(signal, async () => {
      this.dropKept();
      for (const file of changed) this.host.touch(absolutePath(this.root, file));
      const program = this.program();
      const prefix = `${absolutePath(this.root, packageDir)}/`;
      const targets = new Set(
        program
          .getSourceFiles()
          .map((sf) => sf.fileName)
          .filter((f) => f.startsWith(prefix)),
      );
      const importers = [...directImporters(program, targets)].filter((f) => !f.startsWith(prefix));
      const diagnostics: CodeDiagnostic[] = [];
      for (const file of importers) {
        diagnostics.push(...this.diagnosticsOf(file).map((d) => this.toDiagnostic(d)));
        await nextTurn();
      }
      return { checkedFiles: importers.map((f) => workspacePath(this.root, f)), diagnostics };
    });
  }

  async probe(
    path: string,
    content: string,
    signal: AbortSignal,
    overlays: readonly { path: string; content: string }[] = [],
  ): Promise<CodeDiagnostic[]> {
    return this.cancellable(signal, async () => {
      const file = absolutePath(this.root, path);
      // In the editor this service only answers probes, and the disk moved on without it: catch up first.
      this.host.syncAllFromDisk();
      if (this.options.keepProbes && !overlays.length) {
        for (const f of this.kept.keys()) if (f !== file) this.drop(f);
        if (this.kept.get(file) !== content) {
          this.host.setVirtual(file, content);
          this.kept.set(file, content);
        }
        return this.diagnosticsOf(file).map((d) => this.toDiagnostic(d));
      }
      this.dropKept();
      const others = overlays.map((o) => ({ file: absolutePath(this.root, o.path), content: o.content })).filter((o) => o.file !== file);
      for (const o of others) this.host.setVirtual(o.file, o.content);
      this.host.setVirtual(file, content);
      try {
        return this.diagnosticsOf(file).map((d) => this.toDiagnostic(d));
      } finally {
        // Back to what the disk holds: a real file is read again, a file only in memory is gone.
        for (const f of [file, ...others.map((o) => o.file)]) {
          this.host.setVirtual(f, undefined);
          this.host.touch(f);
        }
      }
    });
  }

  async autofix(files: string[], allow: AllowFix, signal: AbortSignal): Promise<{ applied: AppliedFix[]; refused: AppliedFix[] }> {
    return this.cancellable(signal, async () => {
      this.dropKept();
      const targets = files.map((f) => absolutePath(this.root, f));
      for (const file of targets) if (!this.host.syncFromDisk(file)) this.ensureKnown(file);
      const applied: AppliedFix[] = [];
      const refused = new Map<string, AppliedFix>();
      for (let n = 0; n < (this.options.maxFixes ?? 20); n++) {
        const next = await this.nextFix(targets, allow, refused);
        if (!next) break;
        await this.apply(next.action);
        applied.push(next.fix);
        await nextTurn();
      }
      return { applied, refused: [...refused.values()] };
    });
  }

  async resolveSymbol(file: string, symbol: string): Promise<string | null> {
    const abs = absolutePath(this.root, file);
    this.ensureKnown(abs);
    const program = this.program();
    const sf = program.getSourceFile(abs);
    return sf ? resolveSymbolType(program, sf, symbol) : null;
  }

  async symbolsOf(file: string, owner?: string): Promise<SymbolEntry[]> {
    const abs = absolutePath(this.root, file);
    this.ensureKnown(abs);
    const program = this.program();
    const sf = program.getSourceFile(abs);
    return sf ? listSymbols(program, sf, owner) : [];
  }

  dispose(): void {
    this.service.dispose();
  }

  /** The first wanted fix, over the errors of `targets` in order, that touches only allowed files. */
  private async nextFix(
    targets: string[],
    allow: AllowFix,
    refused: Map<string, AppliedFix>,
  ): Promise<{ action: ts.CodeFixAction; fix: AppliedFix } | undefined> {
    for (const file of targets) {
      for (const d of this.diagnosticsOf(file)) {
        if (d.category !== ts.DiagnosticCategory.Error || d.start === undefined || !this.fixable.has(d.code)) continue;
        const actions = this.service.getCodeFixesAtPosition(
          file,
          d.start,
          d.start + (d.length ?? 0),
          [d.code],
          ts.getDefaultFormatCodeSettings('\n'),
          {},
        );
        for (const action of rankFixes(actions)) {
          if (!isWantedFix(action, this.wantedFixes)) continue;
          const fix: AppliedFix = {
            file: workspacePath(this.root, file),
            code: `TS${d.code}`,
            fixName: action.fixName,
            description: action.description,
            files: [...new Set(action.changes.map((c) => workspacePath(this.root, c.fileName)))],
          };
          if (await allowsAll(fix.files, allow)) return { action, fix };
          refused.set(JSON.stringify(fix), fix);
        }
      }
    }
    return undefined;
  }

  private async apply(action: ts.CodeFixAction): Promise<void> {
    for (const change of action.changes) {
      const file = absolutePath(this.root, change.fileName);
      const before = change.isNewFile ? '' : (this.host.text(file) ?? '');
      await mkdir(dirname(file), { recursive: true });
      await writeFile(file, applyTextChanges(before, change.textChanges));
      this.host.touch(file);
    }
  }

  /** Takes the kept probe files out of the program: back to what the disk holds. */
  private dropKept(): void {
    for (const f of [...this.kept.keys()]) this.drop(f);
  }

  private drop(file: string): void {
    this.kept.delete(file);
    this.host.setVirtual(file, undefined);
    this.host.touch(file);
  }

  /** A file created after tsconfig.json was read is not among the roots until touched. */
  private ensureKnown(file: string): void {
    if (!this.program().getSourceFile(file)) this.host.touch(file);
  }

  private diagnosticsOf(file: string): ts.Diagnostic[] {
    return [...this.service.getSyntacticDiagnostics(file), ...this.service.getSemanticDiagnostics(file)];
  }

  private program(): ts.Program {
    const program = this.service.getProgram();
    if (!program) throw new Error('the TypeScript language service has no program');
    this.lastProgram = program;
    return program;
  }

  private toDiagnostic(d: ts.Diagnostic): CodeDiagnostic {
    const position = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start) : { line: 0, character: 0 };
    return {
      file: workspacePath(this.root, d.file?.fileName ?? this.configFile),
      line: position.line + 1,
      column: position.character + 1,
      code: `TS${d.code}`,
      category:
        d.category === ts.DiagnosticCategory.Error ? 'error' : d.category === ts.DiagnosticCategory.Warning ? 'warning' : 'suggestion',
      message: ts.flattenDiagnosticMessageText(d.messageText, '\n'),
    };
  }

  /** Runs `work` with the host's cancellation token bound to `signal`. */
  private async cancellable<T>(signal: AbortSignal, work: () => Promise<T>): Promise<T> {
    if (signal.aborted) throw new CancelledError('diagnostics cancelled');
    this.host.signal = signal;
    try {
      const result = await work();
      if (signal.aborted) throw new CancelledError('diagnostics cancelled');
      return result;
    } catch (err) {
      if (err instanceof ts.OperationCanceledException) throw new CancelledError('diagnostics cancelled');
      throw err;
    } finally {
      this.host.signal = undefined;
    }
  }
}

/** `allow` for every file, in order, up to the first it refuses. */
async function allowsAll(files: readonly string[], allow: AllowFix): Promise<boolean> {
  for (const f of files) if (!(await allow(f))) return false;
  return true;
}
