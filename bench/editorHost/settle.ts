/**
 * Runs inside code-server's extension host (the workbench URL's extensionTestsPath), on a copy of
 * the blog-api fixture: times the editor diagnostics adapter (EditorDiagnostics, the product's own,
 * with its default quiet period) to a settled, non-stale result after an edit, against the TS
 * server's own answer for the same edit, the first diagnostics event for the document holding the
 * new text. Writes its figures beside the workspace folder, where the driver reads them.
 */
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { DiagnosticsPort } from '../../src/core/ports/checks';
import { EditorDiagnostics } from '../../src/vscode/editorDiagnostics';

const FILE = 'src/benchEdit.ts';
const BROKEN = (n: number) => `export const count${n}: number = 'three';\n`;
const FIXED = (n: number) => `export const count${n}: number = ${n};\n`;
const noFallback: DiagnosticsPort = {
  check: () => Promise.reject(new Error('not used')),
  autofix: () => Promise.reject(new Error('not used')),
  resolveSymbol: () => Promise.resolve(null),
};

export interface SettleSample {
  edit: 'error' | 'fix';
  /** EditorDiagnostics.check, from the write to its settled result. */
  settleMs: number;
  /** From the write to the server's first diagnostics for the new text. */
  answerMs: number;
  errors: number;
}

export async function run(): Promise<void> {
  const folder = vscode.workspace.workspaceFolders![0]!;
  const uri = vscode.Uri.joinPath(folder.uri, FILE);
  const out = path.join(path.dirname(folder.uri.fsPath), 'bench-settle.json');
  const edits = Number(process.env.TR_BENCH_EDITS ?? '6');
  const diagnostics = new EditorDiagnostics(folder, { fallback: noFallback });
  const samples: SettleSample[] = [];
  let warmupMs = 0;
  try {
    // The first check also waits for the server to load the project: reported apart, not in the ratio.
    for (let n = 0; n <= edits; n++) {
      const edit = n % 2 === 0 ? 'error' : 'fix';
      const text = edit === 'error' ? BROKEN(n) : FIXED(n);
      let answered: number | undefined;
      const t0 = Date.now();
      const seen: string[] = [];
      const listener = vscode.languages.onDidChangeDiagnostics((e) => {
        if (answered !== undefined || !e.uris.some((u) => u.toString() === uri.toString())) return;
        const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
        seen.push(
          `${Date.now() - t0}ms doc=${doc ? (doc.getText() === text ? 'new' : 'old') : 'none'} errors=${vscode.languages.getDiagnostics(uri).length}`,
        );
        // An event for the old text is not the answer to this edit.
        if (doc?.getText() !== text) return;
        const has = vscode.languages.getDiagnostics(uri).some((d) => d.severity === vscode.DiagnosticSeverity.Error);
        if (has === (edit === 'error')) answered = Date.now();
      });
      writeFileSync(uri.fsPath, text);
      const result = await diagnostics.check([FILE], new AbortController().signal);
      const settleMs = Date.now() - t0;
      // The adapter asks the server directly, so it may settle before the editor's own push for
      // the same text, which comes after the TS extension's debounce: waited for, up to 10 s.
      for (const end = Date.now() + 10_000; n > 0 && answered === undefined && Date.now() < end;)
        await new Promise((r) => setTimeout(r, 20));
      listener.dispose();
      const errors = result.diagnostics.filter((d) => d.file === FILE && d.category === 'error').length;
      // A settled result must be this edit's: the error after the broken write, none after the fix.
      if ((edit === 'error') !== errors > 0) throw new Error(`edit ${n} (${edit}): the settled result is stale (${errors} error(s))`);
      // The first edit is the warm-up, whose answer is not in the ratio: the server may publish it
      // while the document is still opening, which the listener cannot tell from the old text's.
      if (n === 0) {
        warmupMs = settleMs;
        // The adapter asks the server and opens no editor; the TS extension publishes diagnostics
        // only for a file shown in one, so the bench shows it to time the server's own answer.
        await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri));
      } else if (answered === undefined)
        throw new Error(
          `edit ${n} (${edit}): the server published no diagnostics for the new text within 10 s of the adapter's result; seen: ${seen.join(' | ')}`,
        );
      else samples.push({ edit, settleMs, answerMs: answered - t0, errors });
    }
    writeFileSync(out, JSON.stringify({ ok: true, warmupMs, samples }));
  } catch (err) {
    writeFileSync(out, JSON.stringify({ ok: false, error: err instanceof Error ? err.message : String(err) }));
  }
}
