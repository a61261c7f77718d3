import * as vscode from 'vscode';
import { errorMessage, UserInputError } from '../core/errors';
import type { TestTicket } from '../core/stages/authoring/ticketFromTest';
import { showMessage } from './messages';
import { Command } from './settings';
import { workspacePath } from './testCodeLens';
import { exists, ticketIdsIn, ticketIdTaken, type TicketFiles } from './ticketFiles';

const TITLE = 'Make This Test Pass';
const SAVE = 'Save and Draft';
const RUN = 'Run Ticket';

/**
 * Make This Test Pass (the test code lens, or the palette on the active test file): drafts a
 * ticket that takes the test file as its oracle, with no model (`ticketFromTest`), writes it to
 * `.tickets/<ID>.ticket.yaml`, opens it with its checks, and runs nothing: the notification
 * offers Run Ticket for when the user has read it.
 */
export async function makeTestPass(files: TicketFiles, target?: vscode.Uri): Promise<{ uri: vscode.Uri; draft: TestTicket } | undefined> {
  const uri = target ?? vscode.window.activeTextEditor?.document.uri;
  if (!uri) return void showMessage('info', `${TITLE}: open a test file you wrote first.`);
  const doc =
    vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString()) ?? (await vscode.workspace.openTextDocument(uri));
  if (doc.isUntitled)
    return void showMessage('error', `${TITLE}: save the test first. A ticket names its test by its path in the workspace.`);
  const at = uri.scheme === 'file' ? workspacePath(uri) : undefined;
  if (!at)
    return void showMessage(
      'error',
      `${TITLE}: ${uri.fsPath} is outside the workspace. Open its folder: a ticket and its test live in one.`,
    );
  // The run pins the file as it is on disk: a draft from unsaved text would name cases the oracle does not have.
  if (doc.isDirty) {
    const answer = await showMessage('warning', `${TITLE}: ${at.rel} has unsaved changes. The ticket takes the test as saved.`, SAVE);
    if (answer !== SAVE || !(await doc.save())) return undefined;
  }
  const { ticketFromTest } = await import('../core/stages/authoring/ticketFromTest.js');
  const draft = await ticketFromTest(
    { exists: (rel) => exists(vscode.Uri.joinPath(at.folder.uri, rel)) },
    { testPath: at.rel, text: doc.getText(), existingTicketIds: await ticketIdsIn(at.folder) },
  );
  if (await ticketIdTaken(at.folder, draft.id)) return undefined;
  const ticket = vscode.Uri.joinPath(at.folder.uri, draft.path);
  await vscode.workspace.fs.writeFile(ticket, new TextEncoder().encode(draft.text));
  await vscode.window.showTextDocument(ticket, { preview: false });
  const errors = (await files.validate(ticket))?.findings.filter((f) => f.severity === 'error').length ?? 0;
  const scope = `${draft.write.length} file${draft.write.length === 1 ? '' : 's'} in scope${draft.created.length ? ` (${draft.created.length} to create)` : ''}`;
  const criteria = `${draft.criteria} criteri${draft.criteria === 1 ? 'on' : 'a'}`;
  const problems = errors ? ` ${errors} problem(s) to fix first, shown in the Problems view.` : '';
  void showMessage(
    errors ? 'warning' : 'info',
    `Drafted ${draft.id} from ${at.rel}: ${criteria}, ${scope}.${problems} Read it, then run it.`,
    RUN,
  ).then((answer) => answer === RUN && vscode.commands.executeCommand(Command.runTicket, ticket));
  return { uri: ticket, draft };
}

/** Make This Test Pass, as a command: what is wrong with the file is one line, never a stack. */
export function registerMakeTestPassCommand(files: TicketFiles, log?: vscode.LogOutputChannel): vscode.Disposable {
  return vscode.commands.registerCommand(Command.makeTestPass, async (uri?: unknown) => {
    try {
      return await makeTestPass(files, uri instanceof vscode.Uri ? uri : undefined);
    } catch (err) {
      if (!(err instanceof UserInputError)) log?.warn(`make test pass: ${errorMessage(err)}`);
      void showMessage('error', `${TITLE}: ${errorMessage(err)}`);
      return undefined;
    }
  });
}
