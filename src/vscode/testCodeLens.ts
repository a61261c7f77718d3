import * as path from 'node:path';
import * as vscode from 'vscode';
import { isCodePath, isTestPath } from '../core/schema/paths';
import { authoredPathsOf } from '../core/schema/testPlan';
import { GENERATED_HEADER } from '../core/stages/materializer';
import { isTicketFileName, readTicketData, ticketBaseName } from '../core/ticket/ticketFormat';
import { Disposable } from './dispose';
import { Command, readSettings, SECTION, SettingKey } from './settings';

/** The lens's words on a test no ticket takes as its oracle yet. */
const MAKE_THIS_PASS = 'Make this pass with Ticket Runner';

/** Folders whose files are no test the user wrote: installed packages, and the runs' own records. */
const NOT_THE_USERS = /(^|\/)(node_modules|\.ticket-runner)\//;

/** A workspace-relative path the lens may stand on: a test file, named as runners find tests, of the user's own. */
export function isUserTestPath(rel: string): boolean {
  return isCodePath(rel) && isTestPath(rel) && !NOT_THE_USERS.test(rel);
}

/** The workspace-relative path of a document in its folder, with forward slashes; undefined outside every folder. */
export function workspacePath(uri: vscode.Uri): { folder: vscode.WorkspaceFolder; rel: string } | undefined {
  const folder = vscode.workspace.getWorkspaceFolder(uri);
  if (!folder) return undefined;
  return { folder, rel: path.relative(folder.uri.fsPath, uri.fsPath).split(path.sep).join('/') };
}

/**
 * "Make this pass with Ticket Runner" above the first line of a test file the user wrote, or
 * "Run <ID>" when a ticket of the folder already takes the file as its oracle. Cheap on purpose:
 * a lens is asked for on every open and edit, so it reads the file's path and first line only;
 * the tickets' oracles are read once per change to `.tickets/`.
 */
export class TestCodeLens extends Disposable implements vscode.CodeLensProvider {
  private readonly changed = this._register(new vscode.EventEmitter<void>());
  readonly onDidChangeCodeLenses = this.changed.event;
  /** Per folder: each authored test path and the ticket that names it, read when first asked. */
  private readonly oracles = new Map<string, Promise<Map<string, { id: string; uri: vscode.Uri }>>>();

  constructor() {
    super();
    const languages = ['typescript', 'typescriptreact', 'javascript', 'javascriptreact'];
    this._register(
      vscode.languages.registerCodeLensProvider(
        languages.map((language) => ({ scheme: 'file', language })),
        this,
      ),
    );
    const tickets = this._register(vscode.workspace.createFileSystemWatcher('**/.tickets/*'));
    const reread = () => {
      this.oracles.clear();
      this.changed.fire();
    };
    this._register(tickets.onDidCreate(reread));
    this._register(tickets.onDidChange(reread));
    this._register(tickets.onDidDelete(reread));
    this._register(
      vscode.workspace.onDidChangeConfiguration(
        (e) => e.affectsConfiguration(`${SECTION}.${SettingKey.testCodeLens}`) && this.changed.fire(),
      ),
    );
  }

  async provideCodeLenses(doc: vscode.TextDocument): Promise<vscode.CodeLens[]> {
    if (!readSettings(vscode.workspace.getConfiguration(SECTION, doc.uri)).testCodeLens) return [];
    const at = workspacePath(doc.uri);
    // A rendered test is the run's, not the user's: its first line is the materializer's header.
    if (!at || !isUserTestPath(at.rel) || doc.lineAt(0).text.startsWith(GENERATED_HEADER[0]!)) return [];
    const top = new vscode.Range(0, 0, 0, 0);
    const ticket = (await this.oraclesOf(at.folder)).get(at.rel);
    const command: vscode.Command = ticket
      ? {
          title: `Run ${ticket.id}`,
          command: Command.runTicket,
          arguments: [ticket.uri],
          tooltip: `Run ${ticket.id}, which takes this file as its oracle`,
        }
      : {
          title: MAKE_THIS_PASS,
          command: Command.makeTestPass,
          arguments: [doc.uri],
          tooltip: 'Draft a ticket that takes this file as its oracle and the code it imports as its scope',
        };
    return [new vscode.CodeLens(top, command)];
  }

  private oraclesOf(folder: vscode.WorkspaceFolder): Promise<Map<string, { id: string; uri: vscode.Uri }>> {
    let found = this.oracles.get(folder.uri.toString());
    if (!found) {
      found = authoredOracles(folder);
      this.oracles.set(folder.uri.toString(), found);
    }
    return found;
  }
}

/** Each test file a ticket of the folder names in `testPlan.authored`, with that ticket; a ticket that does not read is skipped. */
async function authoredOracles(folder: vscode.WorkspaceFolder): Promise<Map<string, { id: string; uri: vscode.Uri }>> {
  const dir = vscode.Uri.joinPath(folder.uri, '.tickets');
  const oracles = new Map<string, { id: string; uri: vscode.Uri }>();
  let entries: [string, vscode.FileType][] = [];
  try {
    entries = await vscode.workspace.fs.readDirectory(dir);
  } catch {
    return oracles;
  }
  for (const [name, type] of entries) {
    if (type !== vscode.FileType.File || !isTicketFileName(name)) continue;
    const uri = vscode.Uri.joinPath(dir, name);
    try {
      const data = readTicketData(name, new TextDecoder().decode(await vscode.workspace.fs.readFile(uri))) as {
        id?: unknown;
        testPlan?: { authored?: unknown };
      };
      const id = typeof data.id === 'string' ? data.id : ticketBaseName(name);
      for (const rel of authoredPathsOf(data.testPlan?.authored)) oracles.set(rel, { id, uri });
    } catch {
      // A ticket being written may not read yet: its own diagnostics say why.
    }
  }
  return oracles;
}
