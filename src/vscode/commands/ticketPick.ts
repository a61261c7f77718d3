import * as path from 'node:path';
import * as vscode from 'vscode';
import { readTicketData, ticketBaseName, ticketFormatOf } from '../../core/ticket/ticketFormat';
import { scriptPathFor } from '../../node/models/scripted/loadScript';
import { showMessage } from '../messages';
import { openFirst, ticketChoice } from '../ticketChoice';
import { NO_RECORDED_SAMPLE, recordedTickets } from '../waysIn';
import { warmRunModules } from './lazyCore';

/** A ticket file, by its workspace folder and its path in it. */
export interface PickedTicket {
  folder: vscode.WorkspaceFolder;
  rel: string;
}

/** The file of the active editor, and those of the other open editors (the visible ones first). */
function editorFiles(): { active?: vscode.Uri; open: vscode.Uri[] } {
  const active = vscode.window.activeTextEditor?.document.uri;
  const tabs = vscode.window.tabGroups.all
    .flatMap((g) => g.tabs)
    .map((t) => (t.input instanceof vscode.TabInputText ? t.input.uri : undefined));
  const open = [...vscode.window.visibleTextEditors.map((e) => e.document.uri), ...tabs].filter(
    (u): u is vscode.Uri => u?.scheme === 'file' && u.toString() !== active?.toString(),
  );
  return { active: active?.scheme === 'file' ? active : undefined, open };
}

/** The paths of the workspace's scripts of recorded answers (`.tickets/<ID>.script.json`). */
export async function scriptPaths(): Promise<Set<string>> {
  return new Set((await vscode.workspace.findFiles('.tickets/*.script.json', '**/node_modules/**', 500)).map((u) => u.path));
}

export const relTo = (folder: vscode.WorkspaceFolder, uri: vscode.Uri) =>
  path.relative(folder.uri.fsPath, uri.fsPath).split(path.sep).join('/');

const onDisk = async (uri: vscode.Uri) =>
  Promise.resolve(vscode.workspace.fs.stat(uri)).then(
    () => true,
    () => false,
  );

/**
 * With no ticket given (the palette, a key): the ticket in the active editor, saved first since
 * the run reads the file; else the open ticket the list offers first.
 */
export async function ticketInEditor(): Promise<{ target?: vscode.Uri; first?: string }> {
  const { active, open } = editorFiles();
  const choice = ticketChoice(
    active?.path,
    open.map((u) => u.path),
  );
  // A ticket deleted under its editor is not one to run: the list comes instead.
  if ('run' in choice && active && (await onDisk(active))) {
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === active.toString());
    if (doc?.isDirty) await doc.save();
    return { target: active };
  }
  return 'first' in choice ? { first: choice.first } : {};
}

/** The user's pick among the workspace's tickets, `first` at the top. `recorded`: only the tickets the recorded sample can replay. */
export async function pickTicket(first?: string, recorded = false): Promise<PickedTicket | undefined> {
  const all = await vscode.workspace.findFiles('.tickets/*.ticket.{json,yaml,yml}', '**/node_modules/**', 500);
  const found = recorded ? recordedTickets(all, await scriptPaths(), scriptPathFor) : all;
  const items = await Promise.all(
    found.map(async (uri) => {
      const folder = vscode.workspace.getWorkspaceFolder(uri)!;
      let title = '';
      try {
        const t = (
          readTicketData(uri.path, Buffer.from(await vscode.workspace.fs.readFile(uri)).toString('utf8')) as { title?: unknown } | null
        )?.title;
        title = typeof t === 'string' ? t : t === undefined || t === null ? '' : JSON.stringify(t);
      } catch {
        title = `(not valid ${ticketFormatOf(uri.path) === 'yaml' ? 'YAML' : 'JSON'})`;
      }
      const isOpen = uri.path === first;
      return {
        label: ticketBaseName(uri.path),
        description: isOpen ? `${title} · open in the editor` : title,
        detail: vscode.workspace.workspaceFolders!.length > 1 ? folder.name : undefined,
        uri,
        folder,
        path: uri.path,
      };
    }),
  );
  if (!items.length) {
    void showMessage(
      'info',
      recorded && all.length
        ? NO_RECORDED_SAMPLE
        : 'No tickets in this workspace: add one with Ticket Runner: New Ticket, as .tickets/<ID>.ticket.json or .ticket.yaml.',
    );
    return undefined;
  }
  items.sort((a, b) => a.label.localeCompare(b.label, undefined, { numeric: true }));
  // An open ticket comes first, so Enter takes it.
  const ordered = openFirst(items, first);
  // The run's modules load while the user reads the list: on a window's first run they take
  // most of a second, which would otherwise come between the choice and the first event.
  const warm = setTimeout(() => void warmRunModules(), 300);
  const picked = await vscode.window.showQuickPick(ordered, {
    title: recorded ? 'Ticket Runner: Try the Recorded Sample' : 'Ticket Runner: Run Ticket',
    placeHolder: recorded ? 'Pick a ticket to replay with its recorded answers (no model is called)' : 'Pick a ticket to run',
    matchOnDescription: true,
  });
  clearTimeout(warm);
  return picked ? { folder: picked.folder, rel: relTo(picked.folder, picked.uri) } : undefined;
}
