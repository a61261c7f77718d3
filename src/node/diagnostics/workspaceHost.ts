import { createHash } from 'node:crypto';
import { dirname, join } from 'node:path';
import ts from 'typescript';
import { absolutePath } from '../workspacePaths';
import { withOwnFastCheckTypes } from './ownFastCheckTypes';

/** Used when the workspace has no tsconfig.json: close to what the editor assumes for loose files. */
const IMPLICIT_OPTIONS: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  strict: true,
  allowJs: true,
  skipLibCheck: true,
  noEmit: true,
};

/** See WorkspaceHost.jsDocParsingMode. */
const JSDOC_PARSING = ts.JSDocParsingMode.ParseForTypeErrors;

/** A DocumentRegistry for WorkspaceHosts: it parses files as they do (a registry holds files parsed one way only). */
export const newDocumentRegistry = (root?: string): ts.DocumentRegistry =>
  ts.createDocumentRegistry(ts.sys.useCaseSensitiveFileNames, root, JSDOC_PARSING);

/**
 * A LanguageServiceHost over the files on disk. `touch` drops a file's cached text, so the
 * language service re-reads only what changed. A file's version is a hash of the text the
 * service sees: two services that share a DocumentRegistry (the ops' and the diagnostics', in
 * one worker) then share a parsed file exactly when they see the same text, and never a file
 * one of them sees otherwise (an op's trial edit, a change the other was not told of yet).
 */
export class WorkspaceHost implements ts.LanguageServiceHost {
  /** The version of each text read, by file; dropped with the text. */
  private readonly versions = new Map<string, string>();
  private readonly texts = new Map<string, string | undefined>();
  private projectVersion = 0;
  private roots = new Set<string>();
  /** The files that exist only in memory (setVirtual): the disk is no news of them. */
  private readonly virtual = new Set<string>();
  private options: ts.CompilerOptions = IMPLICIT_OPTIONS;
  /** Problems in tsconfig.json itself, reported with the diagnostics. */
  configErrors: readonly ts.Diagnostic[] = [];
  /** Set for the duration of one call, so a long check stops when its run is cancelled. */
  signal: AbortSignal | undefined;
  /**
   * The doc comments TypeScript parses, as `tsc` does: all of a JavaScript file's, which hold its
   * types, and of a TypeScript file's only those with `{@link}` or `@see`, which can use an import.
   * The rest cannot change an error, and were a third of the parse of a project with `@types/node`.
   * A rename still reaches `{@link old}`. Its services take their registry from `newDocumentRegistry`.
   */
  readonly jsDocParsingMode = JSDOC_PARSING;

  constructor(
    private readonly root: string,
    readonly configFile: string | undefined,
    private readonly libDir?: string,
    /**
     * Asked with the signal while the service works: a worker thread's caller cancels through
     * shared memory, since an abort cannot reach a thread busy in synchronous work.
     */
    private readonly interrupted?: () => boolean,
  ) {
    this.loadConfig();
  }

  /** Reads tsconfig.json again: its options and its file list. */
  loadConfig(): void {
    this.projectVersion++;
    if (!this.configFile || !ts.sys.fileExists(this.configFile)) {
      this.options = withOwnFastCheckTypes(IMPLICIT_OPTIONS, this.root, __dirname);
      this.configErrors = [];
      return;
    }
    const read = ts.readConfigFile(this.configFile, (f) => ts.sys.readFile(f));
    if (read.error) {
      this.configErrors = [read.error];
      return;
    }
    const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, dirname(this.configFile), undefined, this.configFile);
    // A rendered property imports fast-check: a workspace without it type-checks it against Ticket Runner's copy.
    this.options = withOwnFastCheckTypes(parsed.options, this.root, __dirname);
    this.roots = new Set(parsed.fileNames.map((f) => absolutePath(this.root, f)));
    // "No inputs were found" is moot when the files come from the changed list.
    this.configErrors = parsed.errors.filter((e) => e.code !== 18003);
  }

  /** The file changed on disk (or is new, or is gone): the next program re-reads it. */
  touch(file: string): void {
    this.versions.delete(file);
    this.texts.delete(file);
    this.projectVersion++;
    if (!ts.sys.fileExists(file)) this.roots.delete(file);
    else if (this.isSource(file)) this.roots.add(file);
  }

  /** Makes `file` a root of the program, though it is not (yet) on disk. */
  addRoot(file: string): void {
    this.roots.add(file);
    this.projectVersion++;
  }

  /**
   * Puts a file that exists only in memory into the program (a type probe), or takes it out
   * again with `undefined`. Nothing is written to disk.
   */
  setVirtual(file: string, text: string | undefined): void {
    this.versions.delete(file);
    this.projectVersion++;
    if (text === undefined) {
      this.texts.delete(file);
      this.roots.delete(file);
      this.virtual.delete(file);
    } else {
      this.texts.set(file, text);
      this.roots.add(file);
      this.virtual.add(file);
    }
  }

  /** The text the language service sees for `file`. */
  text(file: string): string | undefined {
    if (!this.texts.has(file)) this.texts.set(file, ts.sys.readFile(file));
    return this.texts.get(file);
  }

  /** Touches every file whose text on disk is no longer what the service saw (a writer it was not told of). */
  syncAllFromDisk(): void {
    for (const file of [...this.texts.keys()]) this.syncFromDisk(file);
  }

  /** Touches `file` when the disk no longer holds what the language service saw; true if it did. */
  syncFromDisk(file: string): boolean {
    if (!this.texts.has(file) || this.virtual.has(file)) return false;
    if (ts.sys.readFile(file) === this.texts.get(file)) return false;
    this.touch(file);
    return true;
  }

  isSource(file: string): boolean {
    if (/\.(d\.)?[mc]?tsx?$/i.test(file)) return true;
    return this.options.allowJs === true && /\.[mc]?jsx?$/i.test(file);
  }

  getProjectVersion(): string {
    return String(this.projectVersion);
  }
  getScriptFileNames(): string[] {
    return [...this.roots];
  }
  getScriptVersion(file: string): string {
    let version = this.versions.get(file);
    if (version === undefined) {
      const text = this.text(file);
      // sha1 is no defence here, only a name for a text: the texts are the service's own reads.
      version = text === undefined ? 'none' : createHash('sha1').update(text).digest('base64');
      this.versions.set(file, version);
    }
    return version;
  }
  getScriptSnapshot(file: string): ts.IScriptSnapshot | undefined {
    const text = this.text(file);
    return text === undefined ? undefined : ts.ScriptSnapshot.fromString(text);
  }
  getCompilationSettings(): ts.CompilerOptions {
    return this.options;
  }
  getCurrentDirectory(): string {
    return this.root;
  }
  getDefaultLibFileName(options: ts.CompilerOptions): string {
    return this.libDir ? join(this.libDir, ts.getDefaultLibFileName(options)) : ts.getDefaultLibFilePath(options);
  }
  getCancellationToken(): ts.HostCancellationToken {
    return { isCancellationRequested: () => this.signal?.aborted === true || this.interrupted?.() === true };
  }
  fileExists(file: string): boolean {
    return this.texts.has(file) ? this.texts.get(file) !== undefined : ts.sys.fileExists(file);
  }
  readFile(file: string): string | undefined {
    return this.text(file);
  }
  readDirectory(
    path: string,
    extensions?: readonly string[],
    exclude?: readonly string[],
    include?: readonly string[],
    depth?: number,
  ): string[] {
    return ts.sys.readDirectory(path, extensions, exclude, include, depth);
  }
  directoryExists(path: string): boolean {
    return ts.sys.directoryExists(path);
  }
  getDirectories(path: string): string[] {
    return ts.sys.getDirectories(path);
  }
  realpath(path: string): string {
    return ts.sys.realpath?.(path) ?? path;
  }
  useCaseSensitiveFileNames(): boolean {
    return ts.sys.useCaseSensitiveFileNames;
  }
}
