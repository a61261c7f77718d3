import * as vscode from 'vscode';
import { CancelledError } from '../core/errors';
import type { DiagnosticsPort } from '../core/ports/checks';
import type { AppliedFix, CodeDiagnostic } from '../core/schema/checks';
import { Disposable, DisposableStore, toDisposable } from './dispose';

export interface EditorDiagnosticsOptions {
  /** Resolves symbols for the router's guards (the headless language service). */
  fallback: DiagnosticsPort;
  log?: vscode.LogOutputChannel;
  /** Settled: every target has fresh diagnostics and none changed for this long. */
  quietMs?: number;
  /** Never wait longer than this for the server; report what it has, and say so in the log. */
  ceilingMs?: number;
  /** At most this many fixes per autofix call, so a fix that brings its error back cannot loop. */
  maxFixes?: number;
}

/** Diagnostic codes whose quick fixes are structural: missing imports and misspelled names. */
const STRUCTURAL_CODES = new Set(['2304', '2305', '2552', '2551', '2724', '2503', '2582', '2693', '1308', '2311']);
/** Quick-fix titles (the TypeScript server's wording) of the structural fixes; never "ignore" or "disable". */
const STRUCTURAL_TITLE = /^(Add import from|Update import from|Import '|Change spelling to|Add missing 'await'|Add 'await'|Add 'async'|Add 'this\.'|Add 'new'|Add missing call parentheses)/;

/**
 * Whether the TypeScript server of this window has published diagnostics at least once (or
 * a settle waited out its ceiling). Until then it may still be loading its project, and a
 * file with no diagnostics yet proves nothing.
 */
let serverWarm = false;

const codeOf = (d: vscode.Diagnostic): string => String(typeof d.code === 'object' ? d.code.value : (d.code ?? ''));

/**
 * The DiagnosticsPort over the editor's own TypeScript server. `check` opens the changed
 * documents (and the open or discoverable files that import them), then waits, event by
 * event, until their diagnostics settle: each target must report after its document holds
 * the bytes on disk (so nothing from before the write counts), then a quiet period with no
 * change, under a ceiling. `autofix` applies the server's own quick fixes and
 * `source.addMissingImports` through WorkspaceEdit, so undo works, and only when every
 * file an edit touches is allowed.
 */
export class EditorDiagnostics extends Disposable implements DiagnosticsPort {
  private readonly quietMs: number;
  private readonly ceilingMs: number;

  constructor(
    private readonly folder: vscode.WorkspaceFolder,
    private readonly options: EditorDiagnosticsOptions,
  ) {
    super();
    // The headless service it falls back on is its own: it goes with it.
    this._register(toDisposable(() => options.fallback.dispose?.()));
    this.quietMs = options.quietMs ?? 600;
    this.ceilingMs = options.ceilingMs ?? 20_000;
  }

  private uri(rel: string): vscode.Uri {
    return vscode.Uri.joinPath(this.folder.uri, rel);
  }

  private rel(uri: vscode.Uri): string | undefined {
    const root = this.folder.uri.path.endsWith('/') ? this.folder.uri.path : this.folder.uri.path + '/';
    return uri.path.startsWith(root) ? uri.path.slice(root.length) : undefined;
  }

  async check(changed: string[], signal: AbortSignal): Promise<{ checkedFiles: string[]; diagnostics: CodeDiagnostic[] }> {
    const code = changed.filter((f) => /\.(c|m)?[tj]sx?$/.test(f));
    const importers = await this.importersOf(code);
    const targets = [...new Set([...code, ...importers])];
    const uris = targets.map((t) => this.uri(t));
    const release = await this.settle(uris, new Set(code.map((c) => this.uri(c).toString())), signal);
    const diagnostics: CodeDiagnostic[] = [];
    for (const uri of uris) {
      const file = this.rel(uri)!;
      for (const d of vscode.languages.getDiagnostics(uri)) {
        if (d.source !== 'ts' && d.source !== 'typescript') continue;
        if (d.severity === vscode.DiagnosticSeverity.Hint) continue;
        diagnostics.push({
          file,
          line: d.range.start.line + 1,
          column: d.range.start.character + 1,
          code: `TS${codeOf(d)}`,
          category: d.severity === vscode.DiagnosticSeverity.Error ? 'error' : d.severity === vscode.DiagnosticSeverity.Warning ? 'warning' : 'suggestion',
          message: d.message,
        });
      }
    }
    await release();
    return { checkedFiles: targets, diagnostics };
  }

  /**
   * Waits until every target's diagnostics are fresh and quiet. `mustReport` targets (the
   * changed files) must see a diagnostics event after their document caught up with the disk;
   * the others (importers) settle with the quiet period, since the server re-checks every
   * open file in the same pass.
   */
  private async settle(uris: vscode.Uri[], mustReport: Set<string>, signal: AbortSignal): Promise<() => Promise<void>> {
    const started = Date.now();
    const opened: vscode.Uri[] = [];
    const want = new Map<string, string>(); // uri → the text on disk the document must hold
    for (const uri of uris) {
      try {
        want.set(uri.toString(), Buffer.from(await vscode.workspace.fs.readFile(uri)).toString('utf8'));
      } catch {
        // Deleted by the write: its diagnostics go when the server notices.
      }
    }
    const fresh = new Set<string>();
    let probedAt: number | undefined;
    let probeMs = 0;
    const current = new Set<string>(); // documents that hold the bytes on disk
    let lastChange = Date.now();
    // This settle's listeners: gone when it settles, is cancelled or fails.
    const disposables = new DisposableStore();
    try {
      await new Promise<void>((resolve, reject) => {
        let timer: ReturnType<typeof setTimeout> | undefined;
        disposables.add(toDisposable(() => clearTimeout(timer)));
        const finish = () => {
          clearTimeout(timer);
          resolve();
        };
        const evaluate = () => {
          if (signal.aborted) return reject(new CancelledError('cancelled'));
          const elapsed = Date.now() - started;
          // The server publishes nothing for a file that was clean and stays clean, so a clean
          // file settles once the server answered a semantic request on it (it holds the new
          // text and its project) and a grace period passed; a file with diagnostics must see
          // them replaced by an event.
          const clean = (u: string) =>
            serverWarm && probedAt !== undefined && Date.now() - probedAt >= Math.max(this.quietMs, 2 * probeMs) && vscode.languages.getDiagnostics(vscode.Uri.parse(u)).length === 0;
          const allFresh = [...mustReport].every((u) => fresh.has(u) || !want.has(u) || clean(u));
          if (elapsed >= this.ceilingMs) {
            const stale = [...mustReport].filter((u) => !fresh.has(u));
            this.options.log?.warn(`editor diagnostics: ceiling of ${this.ceilingMs} ms reached; ${stale.length ? `no fresh report for ${stale.join(', ')}` : 'still changing'}`);
            serverWarm = true;
            return finish();
          }
          if (allFresh && Date.now() - lastChange >= this.quietMs) return finish();
          clearTimeout(timer);
          const wait = allFresh ? this.quietMs - (Date.now() - lastChange) : probedAt !== undefined ? this.quietMs : this.ceilingMs - elapsed;
          timer = setTimeout(evaluate, Math.max(20, Math.min(wait, this.ceilingMs - elapsed)));
        };
        const markCurrent = (doc: vscode.TextDocument) => {
          const key = doc.uri.toString();
          if (want.has(key) && doc.getText() === want.get(key)) current.add(key);
        };
        disposables.add(
          vscode.languages.onDidChangeDiagnostics((e) => {
            let relevant = false;
            if (e.uris.some((u) => /\.(c|m)?[tj]sx?$/.test(u.path))) serverWarm = true;
            for (const u of e.uris) {
              const key = u.toString();
              if (!want.has(key)) continue;
              relevant = true;
              // A report for a document that does not yet hold the new bytes is from before the write.
              if (current.has(key)) fresh.add(key);
            }
            if (relevant) {
              lastChange = Date.now();
              evaluate();
            }
          }),
        );
        disposables.add(vscode.workspace.onDidChangeTextDocument((e) => markCurrent(e.document)));
        disposables.add(vscode.workspace.onDidOpenTextDocument((d) => markCurrent(d)));
        const onAbort = () => reject(new CancelledError('cancelled'));
        signal.addEventListener('abort', onAbort, { once: true });
        disposables.add(toDisposable(() => signal.removeEventListener('abort', onAbort)));
        void (async () => {
          for (const uri of uris) {
            if (!want.has(uri.toString())) continue;
            const doc = await vscode.workspace.openTextDocument(uri);
            markCurrent(doc);
            // The TypeScript extension checks only documents open in a tab: open one (not a
            // preview, which the next would replace and so close), and close it afterwards.
            if (!isInTab(uri)) opened.push(uri);
            await vscode.window.showTextDocument(doc, { preview: false, preserveFocus: true });
            if (!current.has(uri.toString()) && !doc.isDirty) {
              // A document the write changed on disk: reload it from disk now rather than wait
              // for the file watcher. Reverting a clean document changes nothing else.
              await vscode.commands.executeCommand('workbench.action.files.revert');
              markCurrent(doc);
            }
          }
          const probeStart = Date.now();
          for (const key of mustReport) {
            if (!want.has(key)) continue;
            // A semantic request: it returns once the server holds the document and has loaded
            // its project; tokens back mean the server is up (its diagnostics pass comes next).
            const tokens = await vscode.commands.executeCommand<vscode.SemanticTokens | undefined>('vscode.provideDocumentSemanticTokens', vscode.Uri.parse(key));
            if (tokens && tokens.data.length > 0) serverWarm = true;
          }
          probedAt = Date.now();
          probeMs = probedAt - probeStart;
          evaluate();
        })().catch(reject);
      });
    } finally {
      disposables.dispose();
      for (const [k, v] of want) if (fresh.has(k)) this.seen.set(k, v);
      this.options.log?.info(`editor diagnostics: ${uris.length} file(s) settled in ${Date.now() - started} ms (${[...mustReport].filter((u) => fresh.has(u)).length}/${mustReport.size} reported fresh)`);
    }
    return async () => {
      const tabs = vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((t) => t.input instanceof vscode.TabInputText && opened.some((u) => u.toString() === (t.input as vscode.TabInputText).uri.toString()) && !t.isDirty);
      if (tabs.length) await vscode.window.tabGroups.close(tabs, true);
    };
  }

  /** The last text each document settled with, so an unchanged document needs no new report. */
  private readonly seen = new Map<string, string>();

  /** Files in the folder that import a changed file by a relative specifier (one level). */
  private async importersOf(changed: string[]): Promise<string[]> {
    if (!changed.length) return [];
    const stems = new Set(changed.map((c) => c.replace(/\.(c|m)?[tj]sx?$/, '')));
    const files = await vscode.workspace.findFiles(new vscode.RelativePattern(this.folder, '**/*.{ts,tsx,mts,cts}'), '{**/node_modules/**,.ticket-runner/**,**/dist/**}', 2000);
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

  async autofix(files: string[], allow: (path: string) => boolean, signal: AbortSignal): Promise<{ applied: AppliedFix[]; refused: AppliedFix[] }> {
    const applied: AppliedFix[] = [];
    const refused: AppliedFix[] = [];
    const max = this.options.maxFixes ?? 20;
    const code = files.filter((f) => /\.(c|m)?[tj]sx?$/.test(f));
    if (!code.length) return { applied, refused };
    const release = await this.settle(code.map((f) => this.uri(f)), new Set(code.map((f) => this.uri(f).toString())), signal);
    try {
      for (const file of code) {
        const uri = this.uri(file);
        for (let round = 0; round < max && applied.length + refused.length < max; round++) {
          if (signal.aborted) throw new CancelledError('cancelled');
          const candidate = await this.nextFix(uri, refused);
          if (!candidate) break;
          const touched = candidate.action.edit!.entries().map(([u]) => this.rel(u) ?? u.toString());
          const record: AppliedFix = { file, code: candidate.code, fixName: candidate.kind, description: candidate.action.title, files: touched };
          if (!touched.every((t) => allow(t))) {
            refused.push(record);
            continue;
          }
          if (!(await vscode.workspace.applyEdit(candidate.action.edit!))) {
            refused.push({ ...record, description: `${record.description} (the editor refused the edit)` });
            continue;
          }
          // The pipeline and the test runner read the disk: save what the edit changed.
          for (const [u] of candidate.action.edit!.entries()) {
            const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === u.toString());
            if (doc?.isDirty) await doc.save();
          }
          applied.push(record);
          await this.settle([uri], new Set([uri.toString()]), signal);
        }
      }
    } finally {
      await release();
    }
    return { applied, refused };
  }

  /** The first structural fix for an error of the file: a quick fix, else source.addMissingImports. */
  private async nextFix(uri: vscode.Uri, refused: AppliedFix[]): Promise<{ action: vscode.CodeAction; code: string; kind: string } | undefined> {
    const errors = vscode.languages.getDiagnostics(uri).filter((d) => d.severity === vscode.DiagnosticSeverity.Error && STRUCTURAL_CODES.has(codeOf(d)));
    const wasRefused = (a: vscode.CodeAction) => refused.some((r) => r.description === a.title);
    for (const d of errors) {
      const actions = (await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', uri, d.range, vscode.CodeActionKind.QuickFix.value)) ?? [];
      const fix = actions.find((a) => a.edit && !a.command && STRUCTURAL_TITLE.test(a.title) && !wasRefused(a));
      if (fix) return { action: fix, code: `TS${codeOf(d)}`, kind: 'quickfix' };
    }
    if (errors.some((d) => ['2304', '2552'].includes(codeOf(d)))) {
      const whole = new vscode.Range(0, 0, Number.MAX_SAFE_INTEGER, 0);
      const actions = (await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', uri, whole, 'source.addMissingImports')) ?? [];
      const fix = actions.find((a) => a.edit && a.edit.size > 0 && !wasRefused(a));
      if (fix) return { action: fix, code: `TS${codeOf(errors[0]!)}`, kind: 'source.addMissingImports' };
    }
    return undefined;
  }

  /**
   * A probe is a file that exists only in memory, and the guards' probes check the rendered
   * tests against the code before the Coder wrote it: neither is something the editor's server
   * can see without opening documents, so the headless service answers, on the same workspace.
   */
  probe(path: string, content: string, signal: AbortSignal, overlays?: readonly { path: string; content: string }[]): Promise<CodeDiagnostic[]> {
    return this.options.fallback.probe ? this.options.fallback.probe(path, content, signal, overlays) : Promise.resolve([]);
  }

  resolveSymbol(file: string, symbol: string): Promise<string | null> {
    return this.options.fallback.resolveSymbol(file, symbol);
  }
}

function isInTab(uri: vscode.Uri): boolean {
  return vscode.window.tabGroups.all.some((g) => g.tabs.some((t) => t.input instanceof vscode.TabInputText && t.input.uri.toString() === uri.toString()));
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
