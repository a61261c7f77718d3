import * as path from 'node:path';
import * as vscode from 'vscode';
import { newTicketText } from '../core/stages/ticketTemplate';
import type { TicketValidation } from '../core/stages/validateTicket';
import { Disposable } from './dispose';
import { showMessage } from './messages';
import { Command } from './settings';
import type { TicketLanguageClient } from './ticketLanguageClient';

const TICKET = /(^|\/)\.tickets\/[^/]+\.ticket\.json$/;
/** The scheme of the read-only documents that show what a ticket renders. */
export const RENDERED_SCHEME = 'ticket-runner-rendered';

/**
 * The editor's ticket commands: New Ticket, Validate Ticket and Render Ticket. The checks are the
 * ticket language server's (src/lsp, the CLI's `validate` at the findings' places in the text),
 * which also owns the tickets' diagnostics as you type: nothing here validates on its own.
 */
export class TicketFiles extends Disposable implements vscode.TextDocumentContentProvider {
  private readonly rendered = new Map<string, string>();
  private readonly renderedChanged = this._register(new vscode.EventEmitter<vscode.Uri>());
  readonly onDidChange = this.renderedChanged.event;

  constructor(private readonly server: TicketLanguageClient) {
    super();
    this._register(vscode.workspace.registerTextDocumentContentProvider(RENDERED_SCHEME, this));
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.rendered.get(uri.toString()) ?? '';
  }

  /** Validates a ticket as it is in the editor; with types, its findings become its diagnostics. */
  async validate(uri: vscode.Uri, withTypes = true): Promise<TicketValidation | undefined> {
    if (!vscode.workspace.getWorkspaceFolder(uri)) return undefined;
    // Opened (not shown) so the server checks the editor's text, unsaved changes included.
    await vscode.workspace.openTextDocument(uri);
    return this.server.validate(uri, withTypes);
  }

  /** Writes `.tickets/<ID>.ticket.json` from the template, never over an existing file, and opens it. */
  async newTicket(id?: string, title?: string): Promise<vscode.Uri | undefined> {
    const active = vscode.window.activeTextEditor?.document.uri;
    const folder = (active && vscode.workspace.getWorkspaceFolder(active)) ?? vscode.workspace.workspaceFolders?.[0];
    if (!folder) return void showMessage('error', 'Open a folder first: a ticket lives in the .tickets folder of a workspace.');
    id ??= await vscode.window.showInputBox({
      title: 'New Ticket (1/2)',
      prompt: 'The ticket id: letters, digits, dot, dash or underscore',
      placeHolder: 'BLOG-12',
      validateInput: (v) => (/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(v) ? undefined : 'Letters, digits, dot, dash or underscore, starting with a letter or digit (for example BLOG-12)'),
    });
    if (!id) return undefined;
    title ??= await vscode.window.showInputBox({ title: 'New Ticket (2/2)', prompt: 'What the ticket asks for, in one line', validateInput: (v) => (v.trim() ? undefined : 'A title, in one line') });
    if (!title) return undefined;
    const uri = vscode.Uri.joinPath(folder.uri, '.tickets', `${id}.ticket.json`);
    if (await exists(uri)) {
      void showMessage('error', `.tickets/${id}.ticket.json already exists: pick another id, or open that ticket.`);
      return undefined;
    }
    const activeRel = active && vscode.workspace.getWorkspaceFolder(active) === folder ? path.relative(folder.uri.fsPath, active.fsPath).split(path.sep).join('/') : undefined;
    const scopeFile = activeRel && /\.(c|m)?[tj]sx?$/.test(activeRel) && !activeRel.startsWith('.tickets/') ? activeRel : undefined;
    const language = (await exists(vscode.Uri.joinPath(folder.uri, 'tsconfig.json'))) ? 'ts' : 'js';
    const esm = await readJson(vscode.Uri.joinPath(folder.uri, 'package.json')).then((p) => (p as { type?: string } | undefined)?.type === 'module');
    await vscode.workspace.fs.writeFile(uri, Buffer.from(newTicketText({ id, title: title.trim(), scopeFile, language, esm })));
    await vscode.window.showTextDocument(uri, { preview: false });
    return uri;
  }

  /** Shows the tests a run of the ticket would render, in a read-only document beside it. */
  async render(uri: vscode.Uri): Promise<vscode.Uri | undefined> {
    const result = await this.validate(uri, false);
    if (!result) return undefined;
    const errors = result.findings.filter((f) => f.severity === 'error');
    if (errors.length || !result.rendered.length) {
      void showMessage('error', `${path.basename(uri.fsPath)} cannot be rendered: ${errors.length} problem(s), shown in the Problems view.`);
      return undefined;
    }
    const shown = vscode.Uri.from({ scheme: RENDERED_SCHEME, path: `/${result.rendered[0]!.path}`, query: uri.toString() });
    this.rendered.set(shown.toString(), result.rendered.map((f) => (result.rendered.length > 1 ? `// ==> ${f.path} <==\n${f.content}` : f.content)).join('\n'));
    this.renderedChanged.fire(shown);
    await vscode.window.showTextDocument(shown, { preview: true, viewColumn: vscode.ViewColumn.Beside, preserveFocus: true });
    return shown;
  }
}

export const isTicket = (uri: vscode.Uri): boolean => uri.scheme === 'file' && TICKET.test(uri.path);

async function exists(uri: vscode.Uri): Promise<boolean> {
  try {
    await vscode.workspace.fs.stat(uri);
    return true;
  } catch {
    return false;
  }
}

async function readJson(uri: vscode.Uri): Promise<unknown> {
  try {
    return JSON.parse(Buffer.from(await vscode.workspace.fs.readFile(uri)).toString('utf8'));
  } catch {
    return undefined;
  }
}

/** The ticket a command acts on: its argument (a tree or explorer Uri), else the active editor's ticket. */
function ticketOf(arg: unknown): vscode.Uri | undefined {
  if (arg instanceof vscode.Uri) return arg;
  const active = vscode.window.activeTextEditor?.document.uri;
  if (active && isTicket(active)) return active;
  void showMessage('info', 'Open a ticket (.tickets/<ID>.ticket.json) first, or run this from its context menu.');
  return undefined;
}

/** New Ticket, Validate Ticket and Render Ticket. */
export function registerTicketCommands(files: TicketFiles): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand(Command.newTicket, (id?: string, title?: string) => files.newTicket(typeof id === 'string' ? id : undefined, typeof title === 'string' ? title : undefined)),
    vscode.commands.registerCommand(Command.validateTicket, async (arg?: unknown) => {
      const uri = ticketOf(arg);
      if (!uri) return undefined;
      const result = await files.validate(uri);
      if (!result) return undefined;
      const errors = result.findings.filter((f) => f.severity === 'error').length;
      const warnings = result.findings.length - errors;
      void showMessage(errors ? 'warning' : 'info', `${path.basename(uri.fsPath)}: ${errors || warnings ? `${errors} error(s), ${warnings} warning(s), shown in the Problems view` : 'no problem found'}.`);
      return result;
    }),
    vscode.commands.registerCommand(Command.renderTicket, (arg?: unknown) => {
      const uri = ticketOf(arg);
      return uri ? files.render(uri) : undefined;
    }),
  ];
}
