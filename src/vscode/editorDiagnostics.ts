import * as vscode from 'vscode';
import { CancelledError } from '../core/errors';
import type { DiagnosticsPort } from '../core/ports/checks';
import type { AppliedFix, CodeDiagnostic } from '../core/schema/checks';
import { HEADLESS } from '../node/diagnostics/judges';
import { tokenFor } from './cancellation';
import { Disposable, DisposableStore, toDisposable } from './dispose';

export interface EditorDiagnosticsOptions {
  /** Resolves symbols for the router's guards (the headless language service). */
  fallback: DiagnosticsPort;
  log?: vscode.LogOutputChannel;
  /** How long a document may take to reload a file the run wrote before the headless service checks it instead. */
  quietMs?: number;
  /** How long one request to the TypeScript server may take before the headless service checks the file instead. */
  ceilingMs?: number;
  /** At most this many fixes per autofix call, so a fix that brings its error back cannot loop. */
  maxFixes?: number;
}

/**
 * A fix whose edit is the whole fix. The TypeScript extension attaches its own command to every
 * quick fix (telemetry, and follow-ups such as installing a types package, which are not run
 * here); any other command means the edit alone is not the fix.
 */
const completeInEdit = (a: vscode.CodeAction): boolean => !a.command || a.command.command === '_typescript.applyCodeActionCommand';

/** Diagnostic codes whose quick fixes are structural: missing imports and misspelled names. */
const STRUCTURAL_CODES = new Set(['2304', '2305', '2552', '2551', '2724', '2503', '2582', '2693', '1308', '2311']);
/** Quick-fix titles (the TypeScript server's wording) of the structural fixes; never "ignore" or "disable". */
const STRUCTURAL_TITLE =
  /^(Add import from|Update import from|Import '|Change spelling to|Add missing 'await'|Add 'await'|Add 'async'|Add 'this\.'|Add 'new'|Add missing call parentheses)/;

/** The TypeScript extension's command that passes a request to its server (diagnostics requests are on its allow list). */
const TSSERVER_REQUEST = 'typescript.tsserverRequest';
const TS_EXTENSION = 'vscode.typescript-language-features';
const EDITOR_SERVER = "the editor's TypeScript server";

/** A diagnostic as the TypeScript server's protocol gives it (lines and offsets from 1). */
interface ServerDiagnostic {
  start: { line: number; offset: number };
  end: { line: number; offset: number };
  text: string;
  code?: number;
  category: string;
}

/** A server diagnostic as the pipeline records it, with its range in the document. */
interface Found {
  diagnostic: CodeDiagnostic;
  range: vscode.Range;
}

/**
 * The DiagnosticsPort over the editor's own TypeScript server. `check` opens the changed
 * documents (and the files that import them) as documents only, never as tabs, so a run never
 * takes over the editor, and asks the server for each one's syntactic and semantic diagnostics
 * (the TypeScript extension publishes diagnostics only for files shown in tabs, so they are
 * requested, not waited for). A document whose editor copy does not hold the bytes on disk (the
 * user has unsaved edits, or the editor has not reloaded it yet), or a server that does not
 * answer, is checked by the headless service instead, and the log says so: a check never
 * reports a file clean that nothing checked. `autofix` applies the server's own quick fixes
 * and `source.addMissingImports` through WorkspaceEdit, so undo works, and only when every
 * file an edit touches is allowed.
 */
export class EditorDiagnostics extends Disposable implements DiagnosticsPort {
  private readonly quietMs: number;
  private readonly ceilingMs: number;
  /** Where autofix puts a file's errors while it asks for their quick fixes: the code action providers read them from the editor's diagnostics. */
  private readonly pending = this._register(vscode.languages.createDiagnosticCollection('ticket-runner-autofix'));

  constructor(
    private readonly folder: vscode.WorkspaceFolder,
    private readonly options: EditorDiagnosticsOptions,
  ) {
    super();
    // The headless service it falls back on is its own: it goes with it.
    this._register(toDisposable(() => options.fallback.dispose?.()));
    this.quietMs = options.quietMs ?? 1_500;
    this.ceilingMs = options.ceilingMs ?? 30_000;
  }

  private uri(rel: string): vscode.Uri {
    return vscode.Uri.joinPath(this.folder.uri, rel);
  }

  /** The open documents with changes the user has not saved, named as a fix's touched files are. */
  private unsavedFiles(): Set<string> {
    return new Set(vscode.workspace.textDocuments.filter((d) => d.isDirty).map((d) => this.rel(d.uri) ?? d.uri.toString()));
  }

  private rel(uri: vscode.Uri): string | undefined {
    const root = this.folder.uri.path.endsWith('/') ? this.folder.uri.path : this.folder.uri.path + '/';
    return uri.path.startsWith(root) ? uri.path.slice(root.length) : undefined;
  }

  async check(
    changed: string[],
    signal: AbortSignal,
  ): Promise<{ checkedFiles: string[]; diagnostics: CodeDiagnostic[]; checkedBy: string }> {
    const started = Date.now();
    const code = changed.filter((f) => /\.(c|m)?[tj]sx?$/.test(f));
    const importers = await this.importersOf(code);
    const targets = [...new Set([...code, ...importers])];
    const diagnostics: CodeDiagnostic[] = [];
    const headless: string[] = [];
    for (const file of targets) {
      if (signal.aborted) throw new CancelledError('cancelled');
      const found = await this.serverDiagnostics(file, signal);
      if (found === 'deleted') continue;
      if (found === undefined) headless.push(file);
      else diagnostics.push(...found.map((f) => f.diagnostic));
    }
    if (headless.length) {
      // The fallback checks these files as they are on disk; the importers it adds itself are already here.
      const fallback = await this.options.fallback.check(headless, signal);
      const wanted = new Set(headless);
      diagnostics.push(...fallback.diagnostics.filter((d) => wanted.has(d.file)));
    }
    this.options.log?.info(
      `editor diagnostics: ${targets.length} file(s) checked in ${Date.now() - started} ms${headless.length ? ` (${headless.join(', ')} by the headless service)` : ''}`,
    );
    const checkedBy = headless.length ? `${EDITOR_SERVER}; ${headless.join(', ')} by ${HEADLESS}` : EDITOR_SERVER;
    return { checkedFiles: targets, diagnostics, checkedBy };
  }

  /**
   * The server's diagnostics for `file` as it is on disk; 'deleted' when it no longer exists;
   * undefined when the editor's server cannot vouch for that text (the caller checks it headless).
   */
  private async serverDiagnostics(file: string, signal: AbortSignal): Promise<Found[] | 'deleted' | undefined> {
    const uri = this.uri(file);
    let disk: string;
    try {
      disk = Buffer.from(await vscode.workspace.fs.readFile(uri)).toString('utf8');
    } catch {
      return 'deleted';
    }
    const doc = await this.current(uri, disk, signal);
    if (!doc) {
      this.options.log?.warn(
        `editor diagnostics: the editor's copy of ${file} is not the file on disk (unsaved edits, or not reloaded yet)`,
      );
      return undefined;
    }
    const out: Found[] = [];
    for (const request of ['syntacticDiagnosticsSync', 'semanticDiagnosticsSync']) {
      const body = await this.ask(request, uri, signal);
      if (!body) {
        this.options.log?.warn(`editor diagnostics: the TypeScript server gave no ${request} answer for ${file}`);
        return undefined;
      }
      for (const d of body) {
        out.push({
          diagnostic: {
            file,
            line: d.start.line,
            column: d.start.offset,
            code: `TS${d.code ?? ''}`,
            category: d.category === 'error' ? 'error' : d.category === 'warning' ? 'warning' : 'suggestion',
            message: d.text,
          },
          range: new vscode.Range(d.start.line - 1, d.start.offset - 1, d.end.line - 1, d.end.offset - 1),
        });
      }
    }
    // The text may have changed on disk while the server answered: the answer is then not for it.
    const after = Buffer.from(await vscode.workspace.fs.readFile(uri)).toString('utf8');
    return after === disk && doc.getText() === disk ? out : undefined;
  }

  /**
   * The document for `uri`, once it holds `disk`; undefined if it does not within the quiet
   * period (the editor reloads a changed file when its watcher reports it) or has unsaved edits.
   */
  private async current(uri: vscode.Uri, disk: string, signal: AbortSignal): Promise<vscode.TextDocument | undefined> {
    const doc = await vscode.workspace.openTextDocument(uri);
    if (doc.getText() === disk) return doc;
    if (doc.isDirty) return undefined;
    return new Promise((resolve) => {
      const store = new DisposableStore();
      const done = (value: vscode.TextDocument | undefined) => {
        store.dispose();
        resolve(value);
      };
      const timer = setTimeout(() => done(doc.getText() === disk ? doc : undefined), this.quietMs);
      store.add(toDisposable(() => clearTimeout(timer)));
      store.add(
        vscode.workspace.onDidChangeTextDocument((e) => {
          if (e.document.uri.toString() === uri.toString() && e.document.getText() === disk) done(e.document);
        }),
      );
      const onAbort = () => done(undefined);
      signal.addEventListener('abort', onAbort, { once: true });
      store.add(toDisposable(() => signal.removeEventListener('abort', onAbort)));
    });
  }

  /** One request to the editor's TypeScript server, under the ceiling; undefined when it gives no answer. */
  private async ask(command: string, uri: vscode.Uri, signal: AbortSignal): Promise<ServerDiagnostic[] | undefined> {
    await vscode.extensions.getExtension(TS_EXTENSION)?.activate();
    const cts = tokenFor(signal);
    const timer = setTimeout(() => cts.cancel(), this.ceilingMs);
    try {
      const response = await vscode.commands.executeCommand<{ type?: string; body?: ServerDiagnostic[] } | undefined>(
        TSSERVER_REQUEST,
        command,
        { file: uri },
        undefined,
        cts.token,
      );
      if (signal.aborted) throw new CancelledError('cancelled');
      return response?.type === 'response' && Array.isArray(response.body) ? response.body : undefined;
    } catch (err) {
      if (signal.aborted || err instanceof CancelledError) throw new CancelledError('cancelled');
      this.options.log?.warn(`editor diagnostics: ${command} failed: ${err instanceof Error ? err.message : String(err)}`);
      return undefined;
    } finally {
      clearTimeout(timer);
      cts.dispose();
    }
  }

  /** Files in the folder that import a changed file by a relative specifier (one level). */
  private async importersOf(changed: string[]): Promise<string[]> {
    if (!changed.length) return [];
    const stems = new Set(changed.map((c) => c.replace(/\.(c|m)?[tj]sx?$/, '')));
    const files = await vscode.workspace.findFiles(
      new vscode.RelativePattern(this.folder, '**/*.{ts,tsx,mts,cts}'),
      '{**/node_modules/**,.ticket-runner/**,**/dist/**}',
      2000,
    );
    const out: string[] = [];
    for (const uri of files) {
      const rel = this.rel(uri);
      if (!rel || changed.includes(rel)) continue;
      const text = Buffer.from(await vscode.workspace.fs.readFile(uri)).toString('utf8');
      const dir = rel.includes('/') ? rel.slice(0, rel.lastIndexOf('/')) : '';
      for (const m of text.matchAll(/(?:from\s+|import\s*\(\s*|require\s*\(\s*)['"](\.[^'"]+)['"]/g)) {
        const target = joinRel(dir, m[1]!.replace(/\.(c|m)?[tj]sx?$/, '').replace(/\.js$/, ''));
        if (stems.has(target) || stems.has(`${target}/index`)) {
          out.push(rel);
          break;
        }
      }
    }
    return out.sort();
  }

  async autofix(
    files: string[],
    allow: (path: string) => boolean,
    signal: AbortSignal,
  ): Promise<{ applied: AppliedFix[]; refused: AppliedFix[] }> {
    const applied: AppliedFix[] = [];
    const refused: AppliedFix[] = [];
    const max = this.options.maxFixes ?? 20;
    const code = files.filter((f) => /\.(c|m)?[tj]sx?$/.test(f));
    const headless: string[] = [];
    for (const file of code) {
      const uri = this.uri(file);
      for (let round = 0; round < max && applied.length + refused.length < max; round++) {
        if (signal.aborted) throw new CancelledError('cancelled');
        const found = await this.serverDiagnostics(file, signal);
        if (found === 'deleted') break;
        if (found === undefined) {
          headless.push(file);
          break;
        }
        const errors = found.filter((f) => f.diagnostic.category === 'error' && STRUCTURAL_CODES.has(f.diagnostic.code.slice(2)));
        if (!errors.length) break;
        const candidate = await this.nextFix(uri, errors, refused);
        if (!candidate) {
          // A structural error the editor offers no fix for, on a first ask: its server may still be
          // loading the project, and offers no import until it has. The headless service has its own.
          if (round === 0) headless.push(file);
          break;
        }
        const touched = candidate.action.edit!.entries().map(([u]) => this.rel(u) ?? u.toString());
        const record: AppliedFix = {
          file,
          code: candidate.code,
          fixName: candidate.kind,
          description: candidate.action.title,
          files: touched,
        };
        if (!touched.every((t) => allow(t))) {
          refused.push(record);
          continue;
        }
        // The edit lands in the editor's buffers and is saved from there: a buffer with the user's
        // unsaved changes would be saved with them. Such a fix is not made, and the run says so.
        const docOf = (u: vscode.Uri) => vscode.workspace.textDocuments.find((d) => d.uri.toString() === u.toString());
        const dirty = this.unsavedFiles();
        const unsaved = touched.filter((t) => dirty.has(t));
        if (unsaved.length) {
          refused.push({ ...record, description: `${record.description} (${notApplied(unsaved)})` });
          continue;
        }
        if (!(await vscode.workspace.applyEdit(candidate.action.edit!))) {
          refused.push({ ...record, description: `${record.description} (the editor refused the edit)` });
          continue;
        }
        // The pipeline and the test runner read the disk: save what the edit changed, which held
        // nothing unsaved before it (checked above).
        for (const [u] of candidate.action.edit!.entries()) {
          const doc = docOf(u);
          if (doc?.isDirty) await doc.save();
        }
        applied.push(record);
      }
    }
    if (headless.length) {
      // Files the editor's server cannot vouch for are fixed by the headless service, on disk. It
      // may not touch a file with unsaved changes: its write would go under the user's buffer.
      const unsaved = this.unsavedFiles();
      const rest = await this.options.fallback.autofix(headless, (p) => allow(p) && !unsaved.has(p), signal);
      applied.push(...rest.applied);
      for (const r of rest.refused) {
        const theirs = r.files.filter((f) => unsaved.has(f));
        refused.push(
          theirs.length && r.files.every((f) => allow(f)) ? { ...r, description: `${r.description} (${notApplied(theirs)})` } : r,
        );
      }
    }
    return { applied, refused };
  }

  /**
   * The first structural fix for one of the file's errors: a quick fix, else
   * source.addMissingImports. Code action providers read a file's errors from the editor's
   * diagnostics, which the TypeScript extension publishes only for files in tabs, so the errors
   * are put there for the request, under this adapter's own collection, and taken away after.
   */
  private async nextFix(
    uri: vscode.Uri,
    errors: Found[],
    refused: AppliedFix[],
  ): Promise<{ action: vscode.CodeAction; code: string; kind: string } | undefined> {
    const wasRefused = (a: vscode.CodeAction) => refused.some((r) => r.description === a.title);
    this.pending.set(
      uri,
      errors.map((e) => {
        const d = new vscode.Diagnostic(e.range, e.diagnostic.message, vscode.DiagnosticSeverity.Error);
        d.source = 'ts';
        d.code = Number(e.diagnostic.code.slice(2));
        return d;
      }),
    );
    try {
      for (const e of errors) {
        const actions = await codeActions(uri, e.range, vscode.CodeActionKind.QuickFix.value);
        const fix = actions.find((a) => a.edit && completeInEdit(a) && STRUCTURAL_TITLE.test(a.title) && !wasRefused(a));
        if (fix) return { action: fix, code: e.diagnostic.code, kind: 'quickfix' };
      }
      const unknownName = errors.find((e) => ['TS2304', 'TS2552'].includes(e.diagnostic.code));
      if (unknownName) {
        const whole = new vscode.Range(0, 0, Number.MAX_SAFE_INTEGER, 0);
        const actions = await codeActions(uri, whole, 'source.addMissingImports');
        const fix = actions.find((a) => a.edit && a.edit.size > 0 && !wasRefused(a));
        if (fix) return { action: fix, code: unknownName.diagnostic.code, kind: 'source.addMissingImports' };
      }
      return undefined;
    } finally {
      this.pending.delete(uri);
    }
  }

  /**
   * A probe is a file that exists only in memory, and the guards' probes check the rendered
   * tests against the code before the Coder wrote it: neither is something the editor's server
   * can see without opening documents, so the headless service answers, on the same workspace.
   */
  probe(
    path: string,
    content: string,
    signal: AbortSignal,
    overlays?: readonly { path: string; content: string }[],
  ): Promise<CodeDiagnostic[]> {
    return this.options.fallback.probe ? this.options.fallback.probe(path, content, signal, overlays) : Promise.resolve([]);
  }

  resolveSymbol(file: string, symbol: string): Promise<string | null> {
    return this.options.fallback.resolveSymbol(file, symbol);
  }
}

/**
 * The code actions for a range. The editor cancels a request when the document changes under
 * it (a reload from disk that arrives late): asked again, up to twice, rather than failing the fix.
 */
async function codeActions(uri: vscode.Uri, range: vscode.Range, kind: string): Promise<vscode.CodeAction[]> {
  for (let tries = 1; ; tries++) {
    try {
      return (await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', uri, range, kind)) ?? [];
    } catch (err) {
      if (tries >= 3 || !(err instanceof Error) || err.message !== 'Canceled') throw err;
    }
  }
}

function joinRel(dir: string, spec: string): string {
  const parts = dir ? dir.split('/') : [];
  for (const seg of spec.split('/')) {
    if (seg === '.' || seg === '') continue;
    if (seg === '..') parts.pop();
    else parts.push(seg);
  }
  return parts.join('/');
}

/** Why a fix was not made on files the user has unsaved changes in: it would save them, or write under them. */
function notApplied(files: readonly string[]): string {
  return `not applied: ${files.join(', ')} ${files.length > 1 ? 'have' : 'has'} changes you have not saved`;
}
