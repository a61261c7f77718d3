import * as path from 'node:path';
import * as vscode from 'vscode';
import { normalizeRelPath } from '../core/schema/paths';
import { parseTicket } from '../core/ticket/ticketLoader';

/** The modal's words when files the run reads have changes the user has not saved. */
export function unsavedQuestion(files: readonly string[]): { message: string; detail: string; action: string } {
  const them = files.length > 1 ? 'them' : 'it';
  return {
    message: files.length > 1 ? `${files.length} files the run reads have unsaved changes` : `${files[0]} has unsaved changes`,
    detail:
      `The run reads the files of the ticket's scope from disk, so it would not see what you have not saved: ${files.join(', ')}. ` +
      `Save and Run saves ${them} first; Cancel leaves ${them} as ${them === 'it' ? 'it is' : 'they are'} and does not run.`,
    action: 'Save and Run',
  };
}

/** The files of a ticket's scope (written and read) that are open in the editor with unsaved changes. */
export function unsavedInScope(folder: vscode.WorkspaceFolder, ticketPath: string, ticketText: string): vscode.TextDocument[] {
  let scope: Set<string>;
  try {
    const t = parseTicket(ticketPath, ticketText);
    scope = new Set([...t.scope.write, ...t.scope.read].map((p) => normalizeRelPath(p)));
  } catch {
    return [];
  }
  const inFolder = (d: vscode.TextDocument) => vscode.workspace.getWorkspaceFolder(d.uri)?.uri.toString() === folder.uri.toString();
  const rel = (d: vscode.TextDocument) => path.relative(folder.uri.fsPath, d.uri.fsPath).split(path.sep).join('/');
  return vscode.workspace.textDocuments.filter((d) => d.isDirty && d.uri.scheme === 'file' && inFolder(d) && scope.has(rel(d)));
}

/**
 * Before a run: a file of the ticket's scope with unsaved changes is saved only with the user's
 * consent, in a modal that names each one; never silently, and the run never starts on the older
 * text on disk. False when the user cancelled (or a save did not go through): the run does not start.
 */
export async function saveUnsavedScope(folder: vscode.WorkspaceFolder, ticketPath: string, ticketText: string): Promise<boolean> {
  const docs = unsavedInScope(folder, ticketPath, ticketText);
  if (!docs.length) return true;
  const files = docs.map((d) => path.relative(folder.uri.fsPath, d.uri.fsPath).split(path.sep).join('/'));
  const q = unsavedQuestion(files);
  if ((await vscode.window.showWarningMessage(q.message, { modal: true, detail: q.detail }, q.action)) !== q.action) return false;
  for (const d of docs) if (!(await d.save())) return false;
  return true;
}
