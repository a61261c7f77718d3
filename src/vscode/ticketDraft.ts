import * as vscode from 'vscode';
import { errorMessage } from '../core/errors';
import type { Draft } from '../core/stages/authoring/draftTicket';
import type { TicketFormat } from '../core/ticket/ticketFormat';
import { withCancelSignal } from './cancellation';
import { showMessage } from './messages';
import { Command } from './settings';
import { askFormat, askTicketId, ticketIdTaken, type TicketFiles } from './ticketFiles';
import { systemClock } from '../node/store/systemClock';

/** Whether the folder's model can draft, after asking the user for a way in when it cannot (ModelSetup.ensure). */
export type ModelReady = (folder: vscode.WorkspaceFolder) => Promise<boolean>;

/** What the command may be given instead of asking (another command, a test). */
export interface DraftArgs {
  text?: string;
  id?: string;
  format?: TicketFormat;
}

/** The text of the last draft that failed: the next Draft Ticket from Text offers it again, so a failed model call loses nothing. */
let keptText: string | undefined;

/** The issue's text: the argument, else the active editor's selection, else a box to paste it in (holding the text a failed draft kept). */
async function issueText(given: string | undefined): Promise<string | undefined> {
  if (given?.trim()) return given;
  const editor = vscode.window.activeTextEditor;
  const selected = editor && !editor.selection.isEmpty ? editor.document.getText(editor.selection) : '';
  if (selected.trim()) return selected;
  return vscode.window.showInputBox({
    title: 'Draft Ticket from Text (1/3)',
    prompt: keptText
      ? 'The text of the draft that failed, kept to try again (edit it or press Enter)'
      : "Paste the issue's text or describe the change (or select it in an editor first)",
    ...(keptText ? { value: keptText } : {}),
    ignoreFocusOut: true,
  });
}

/** What the draft's model calls cost and which rungs fired, in the output channel, in plain words. */
function logRecord(log: vscode.LogOutputChannel | undefined, id: string, draft: Draft): void {
  if (!log) return;
  for (const r of draft.rejected) log.info(`draft ${id}: an answer was refused and asked again: ${r}`);
  for (const r of draft.record.rungs) log.info(`draft ${id}: recovery: ${r}`);
  log.info(`draft ${id}: ${draft.record.summary}`);
}

/**
 * Draft Ticket from Text: the folder's model drafts a ticket from an issue's text; the draft is
 * validated and its tests rendered, and it opens as an unsaved document at its ticket path with
 * its findings, the rendered tests beside it. Nothing is written and nothing runs: the user saves
 * the draft, and runs it when they choose to.
 */
export async function draftFromText(
  files: TicketFiles,
  modelReady: ModelReady,
  args: DraftArgs = {},
  log?: vscode.LogOutputChannel,
): Promise<{ uri: vscode.Uri; draft: Draft } | undefined> {
  const folder =
    (vscode.window.activeTextEditor && vscode.workspace.getWorkspaceFolder(vscode.window.activeTextEditor.document.uri)) ??
    vscode.workspace.workspaceFolders?.[0];
  if (!folder) return void showMessage('error', 'Open a folder first: a ticket lives in the .tickets folder of a workspace.');
  // The model before the questions: a draft with no model to ask would be lost after them.
  if (!(await modelReady(folder))) return undefined;
  const text = await issueText(args.text);
  if (!text?.trim()) return undefined;
  const id = args.id ?? (await askTicketId(folder, 'Draft Ticket from Text (2/3)'));
  if (!id) return undefined;
  const format = args.format ?? (await askFormat(id, 'Draft Ticket from Text (3/3)'));
  if (!format || (await ticketIdTaken(folder, id))) return undefined;
  const ticketPath = `.tickets/${id}.ticket.${format}`;
  const draft = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `Ticket Runner: drafting ${id}`, cancellable: true },
    (_progress, token) =>
      withCancelSignal(token, async (signal) => {
        try {
          const [{ draftTicket }, model, checks] = await Promise.all([
            import('../core/stages/authoring/draftTicket.js'),
            files.draftModel(folder, ticketPath),
            files.checksFor(folder),
          ]);
          return await draftTicket({ model, clock: systemClock, ...checks }, { issueText: text, ticketPath, id }, signal);
        } catch (err) {
          keptText = text;
          throw err;
        }
      }),
  );
  keptText = undefined;
  logRecord(log, id, draft);
  // Unsaved, at the path it would be saved to: Save keeps it, closing drops it.
  const uri = vscode.Uri.joinPath(folder.uri, ticketPath).with({ scheme: 'untitled' });
  const doc = await vscode.workspace.openTextDocument(uri);
  const edit = new vscode.WorkspaceEdit();
  edit.replace(uri, new vscode.Range(0, 0, doc.lineCount, 0), draft.text);
  await vscode.workspace.applyEdit(edit);
  await vscode.window.showTextDocument(doc, { preview: false });
  files.showFindings(uri, draft.text, draft.findings, format);
  if (draft.rendered.length) await files.showRendered(uri, draft.rendered);
  const errors = draft.findings.filter((f) => f.severity === 'error').length;
  void showMessage(
    errors ? 'warning' : 'info',
    `Draft ${id}: ${errors ? `${errors} problem(s) to fix, shown in the Problems view` : 'valid'}. It is not saved and has not run: read it, save it, then run it when you choose to. ${recordWords(draft)}`,
  );
  return { uri, draft };
}

/** The draft's cost and recovery in one sentence: the output channel has each step. */
function recordWords(draft: Draft): string {
  const { rungs } = draft.record;
  return `It took ${draft.record.summary}${rungs.length ? ` (${rungs.join('; ')})` : ''}.`;
}

/** Draft Ticket from Text, as a command: its errors (no usable draft, no key, no script) are one line, never a stack. */
export function registerDraftCommand(files: TicketFiles, modelReady: ModelReady, log?: vscode.LogOutputChannel): vscode.Disposable {
  return vscode.commands.registerCommand(Command.draftTicket, async (args?: DraftArgs) => {
    try {
      return await draftFromText(files, modelReady, args && typeof args === 'object' ? args : {}, log);
    } catch (err) {
      log?.warn(`draft: ${errorMessage(err)}`);
      void showMessage(
        'error',
        `Draft Ticket from Text: ${errorMessage(err)}${keptText ? ' Your text is kept: run Draft Ticket from Text again to retry it.' : ''}`,
      );
      return undefined;
    }
  });
}
