import * as path from 'node:path';
import * as vscode from 'vscode';
import { newTicketText } from '../core/ticket/ticketTemplate';
import { isTicketFileName, ticketBaseName, TICKET_SUFFIXES, ticketFormatOf, type TicketFormat } from '../core/ticket/ticketFormat';
import { nextTicketId, ticketIdProblem } from '../core/ticket/ticketIds';
import type { TicketFinding, TicketValidation } from '../core/stages/authoring/validateTicket';
import { findingRange } from '../node/tickets/findingRanges';
import type { DiagnosticsPort } from '../core/ports/checks';
import type { WorkspacePort } from '../core/ports/workspace';
import type { ModelPort } from '../core/ports/model';
import type { MaterializedFile } from '../core/stages/materializer';
import { Disposable, DisposableMap, toDisposable } from './dispose';
import { showMessage } from './messages';
import { Command } from './settings';
import type { TicketLanguageClient } from './ticketLanguageClient';
import { TICKET_PATH } from './ticketChoice';

/** The scheme of the read-only documents that show what a ticket renders. */
export const RENDERED_SCHEME = 'ticket-runner-rendered';

type Checks = { workspace: WorkspacePort; diagnostics?: DiagnosticsPort };

/**
 * The editor's side of writing tickets: New Ticket, Validate Ticket, Render Ticket and Draft
 * Ticket from Text. A ticket file's checks (JSON or YAML) are the ticket language server's
 * (src/lsp: the CLI's `validate` at the findings' places, as you type); a draft, which is no
 * file, is validated here with the same core (`validateTicket`). Each document has one owner of
 * its diagnostics. Nothing here runs the workspace's
 * code; only Draft calls a model.
 */
export class TicketFiles extends Disposable implements vscode.TextDocumentContentProvider {
  private readonly problems = this._register(vscode.languages.createDiagnosticCollection('ticket-runner-ticket-checks'));
  /** One headless language service per folder, started on the first check. */
  private readonly checks = new Map<string, Promise<Checks>>();
  /** The validation under way per ticket: a newer save aborts it. */
  private readonly running = this._register(new DisposableMap<string, vscode.Disposable>());
  private readonly rendered = new Map<string, string>();
  private readonly renderedChanged = this._register(new vscode.EventEmitter<vscode.Uri>());
  readonly onDidChange = this.renderedChanged.event;

  constructor(
    private readonly server: TicketLanguageClient,
    /** The model Draft Ticket from Text asks (the folder's run model). */
    readonly draftModel: (folder: vscode.WorkspaceFolder, ticketPath: string) => Promise<ModelPort>,
  ) {
    super();
    this._register(toDisposable(() => void Promise.all([...this.checks.values()].map(async (c) => (await c).diagnostics?.dispose?.()))));
    this._register(vscode.workspace.registerTextDocumentContentProvider(RENDERED_SCHEME, this));
    this._register(vscode.workspace.onDidCloseTextDocument((doc) => isTicket(doc.uri) && this.problems.delete(doc.uri)));
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.rendered.get(uri.toString()) ?? '';
  }

  /** The read-only checks `validate` needs in a folder. */
  checksFor(folder: vscode.WorkspaceFolder): Promise<Checks> {
    let c = this.checks.get(folder.uri.toString());
    if (!c) {
      // Loaded when first needed: the language service is large, and activation stays light.
      c = import('../node/wire.js').then((m) => m.wireTicketChecks(folder.uri.fsPath));
      this.checks.set(folder.uri.toString(), c);
    }
    return c;
  }

  /** Validates a ticket as it is in the editor, and shows its findings as diagnostics. */
  async validate(uri: vscode.Uri, withTypes = true): Promise<TicketValidation | undefined> {
    const folder = vscode.workspace.getWorkspaceFolder(uri);
    if (!folder) return undefined;
    if (uri.scheme === 'file') {
      // Opened (not shown) so the server checks the editor's text, unsaved changes included.
      await vscode.workspace.openTextDocument(uri);
      return this.server.validate(uri, withTypes);
    }
    const key = uri.toString();
    const controller = new AbortController();
    this.running.set(
      key,
      toDisposable(() => controller.abort()),
    );
    const text = (await vscode.workspace.openTextDocument(uri)).getText();
    const rel = path.relative(folder.uri.fsPath, uri.fsPath).split(path.sep).join('/');
    const checks = await this.checksFor(folder);
    const { validateTicket } = await import('../core/stages/authoring/validateTicket.js');
    const result = await validateTicket(withTypes ? checks : { workspace: checks.workspace }, rel, text, controller.signal);
    if (controller.signal.aborted) return undefined;
    this.showFindings(uri, text, result.findings, ticketFormatOf(rel));
    this.running.deleteAndLeak(key);
    return result;
  }

  /** A ticket's findings as diagnostics, at their places in its text. */
  showFindings(uri: vscode.Uri, text: string, findings: TicketFinding[], format: TicketFormat): void {
    this.problems.set(
      uri,
      findings.map((f) => toDiagnostic(text, f, format)),
    );
  }

  /** Writes `.tickets/<ID>.ticket.json` (or `.ticket.yaml`) from the template, never over an existing ticket of that id, and opens it. */
  async newTicket(id?: string, title?: string, format?: TicketFormat): Promise<vscode.Uri | undefined> {
    const active = vscode.window.activeTextEditor?.document.uri;
    const folder = (active && vscode.workspace.getWorkspaceFolder(active)) ?? vscode.workspace.workspaceFolders?.[0];
    if (!folder) return void showMessage('error', 'Open a folder first: a ticket lives in the .tickets folder of a workspace.');
    const interactive = id === undefined || title === undefined;
    id ??= await askTicketId(folder, 'New Ticket (1/3)');
    if (!id) return undefined;
    title ??= await vscode.window.showInputBox({
      title: 'New Ticket (2/3)',
      prompt: 'What the ticket asks for, in one line',
      validateInput: (v) => (v.trim() ? undefined : 'A title, in one line'),
    });
    if (!title) return undefined;
    // Called with an id and a title (a test, another command), the format is JSON unless given.
    if (!format && !interactive) format = 'json';
    format ??= await askFormat(id, 'New Ticket (3/3)');
    if (!format || (await ticketIdTaken(folder, id))) return undefined;
    const uri = vscode.Uri.joinPath(folder.uri, '.tickets', `${id}.ticket.${format}`);
    const activeRel =
      active && vscode.workspace.getWorkspaceFolder(active) === folder
        ? path.relative(folder.uri.fsPath, active.fsPath).split(path.sep).join('/')
        : undefined;
    const scopeFile = activeRel && /\.(c|m)?[tj]sx?$/.test(activeRel) && !activeRel.startsWith('.tickets/') ? activeRel : undefined;
    const language = (await exists(vscode.Uri.joinPath(folder.uri, 'tsconfig.json'))) ? 'ts' : 'js';
    const esm = await readJson(vscode.Uri.joinPath(folder.uri, 'package.json')).then(
      (p) => (p as { type?: string } | undefined)?.type === 'module',
    );
    await vscode.workspace.fs.writeFile(uri, Buffer.from(newTicketText({ id, title: title.trim(), scopeFile, language, esm, format })));
    await vscode.window.showTextDocument(uri, { preview: false });
    return uri;
  }

  /** Shows the tests a run of the ticket would render, in a read-only document beside it. */
  async render(uri: vscode.Uri): Promise<vscode.Uri | undefined> {
    const result = await this.validate(uri, false);
    if (!result) return undefined;
    const errors = result.findings.filter((f) => f.severity === 'error');
    if (errors.length || !result.rendered.length) {
      void showMessage(
        'error',
        `${path.basename(uri.fsPath)} cannot be rendered: ${errors.length} problem(s), shown in the Problems view.`,
      );
      return undefined;
    }
    return this.showRendered(uri, result.rendered);
  }

  /** The rendered tests of a ticket (or a draft) in a read-only document beside it. */
  async showRendered(of: vscode.Uri, rendered: MaterializedFile[]): Promise<vscode.Uri> {
    const shown = vscode.Uri.from({ scheme: RENDERED_SCHEME, path: `/${rendered[0]!.path}`, query: of.toString() });
    this.rendered.set(
      shown.toString(),
      rendered.map((f) => (rendered.length > 1 ? `// ==> ${f.path} <==\n${f.content}` : f.content)).join('\n'),
    );
    this.renderedChanged.fire(shown);
    await vscode.window.showTextDocument(shown, { preview: true, viewColumn: vscode.ViewColumn.Beside, preserveFocus: true });
    return shown;
  }
}

/**
 * A new ticket's id, asked with the next free one proposed (BLOG-13 exists: BLOG-14); an id a
 * ticket of the folder has is refused as it is typed, before any other question.
 */
export async function askTicketId(folder: vscode.WorkspaceFolder, title: string): Promise<string | undefined> {
  const existing = await ticketIdsIn(folder);
  const proposed = nextTicketId(existing);
  return vscode.window.showInputBox({
    title,
    prompt: 'The ticket id: letters, digits, dot, dash or underscore',
    value: proposed,
    placeHolder: proposed ?? 'PROJ-1',
    validateInput: (v) => ticketIdProblem(v, existing),
  });
}

/** The ids of the folder's tickets, in any format. */
export async function ticketIdsIn(folder: vscode.WorkspaceFolder): Promise<string[]> {
  try {
    const entries = await vscode.workspace.fs.readDirectory(vscode.Uri.joinPath(folder.uri, '.tickets'));
    return entries.filter(([name, type]) => type === vscode.FileType.File && isTicketFileName(name)).map(([name]) => ticketBaseName(name));
  } catch {
    return [];
  }
}

/** The ticket file's format, asked with its file names. */
export async function askFormat(id: string, title: string): Promise<TicketFormat | undefined> {
  const picked = await vscode.window.showQuickPick(
    [
      { label: 'JSON', description: `.tickets/${id}.ticket.json`, format: 'json' as const },
      { label: 'YAML', description: `.tickets/${id}.ticket.yaml: expressions as block scalars, no quoting`, format: 'yaml' as const },
    ],
    { title, placeHolder: 'The ticket file format' },
  );
  return picked?.format;
}

/** Whether the folder has a ticket of this id in any format (and says so): both forms would share a script and a run's name. */
export async function ticketIdTaken(folder: vscode.WorkspaceFolder, id: string): Promise<boolean> {
  for (const suffix of TICKET_SUFFIXES) {
    if (await exists(vscode.Uri.joinPath(folder.uri, '.tickets', `${id}${suffix}`))) {
      void showMessage('error', `.tickets/${id}${suffix} already exists: pick another id, or open that ticket.`);
      return true;
    }
  }
  return false;
}

export const isTicket = (uri: vscode.Uri): boolean => uri.scheme === 'file' && TICKET_PATH.test(uri.path);

const SEVERITY = {
  error: vscode.DiagnosticSeverity.Error,
  warning: vscode.DiagnosticSeverity.Warning,
  information: vscode.DiagnosticSeverity.Information,
} satisfies Record<TicketFinding['severity'], vscode.DiagnosticSeverity>;

function toDiagnostic(text: string, f: TicketFinding, format: TicketFormat): vscode.Diagnostic {
  const { offset, length } = findingRange(text, f.path, format);
  const doc = lineIndex(text);
  const d = new vscode.Diagnostic(new vscode.Range(doc(offset), doc(offset + length)), f.message, SEVERITY[f.severity]);
  d.source = 'Ticket Runner';
  return d;
}

/** Offset to position, over the text as validated (the document may have moved on since). */
function lineIndex(text: string): (offset: number) => vscode.Position {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text[i] === '\n') starts.push(i + 1);
  return (offset) => {
    let line = starts.length - 1;
    while (line > 0 && starts[line]! > offset) line--;
    return new vscode.Position(line, offset - starts[line]!);
  };
}

/** Whether a file or folder is there. */
export async function exists(uri: vscode.Uri): Promise<boolean> {
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
  void showMessage('info', 'Open a ticket (.tickets/<ID>.ticket.json or .ticket.yaml) first, or run this from its context menu.');
  return undefined;
}

/** New Ticket, Validate Ticket and Render Ticket. */
export function registerTicketCommands(files: TicketFiles): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand(Command.newTicket, (id?: string, title?: string, format?: string) =>
      files.newTicket(
        typeof id === 'string' ? id : undefined,
        typeof title === 'string' ? title : undefined,
        format === 'json' || format === 'yaml' ? format : undefined,
      ),
    ),
    vscode.commands.registerCommand(Command.validateTicket, async (arg?: unknown) => {
      const uri = ticketOf(arg);
      if (!uri) return undefined;
      const result = await files.validate(uri);
      if (!result) return undefined;
      const errors = result.findings.filter((f) => f.severity === 'error').length;
      const warnings = result.findings.filter((f) => f.severity === 'warning').length;
      const hints = result.findings.length - errors - warnings;
      const told =
        errors || warnings
          ? `${errors} error(s), ${warnings} warning(s)${hints ? `, ${hints} suggestion(s)` : ''}, shown in the Problems view`
          : hints
            ? `no problem found; ${hints} refs suggestion(s) in the Problems view`
            : 'no problem found';
      void showMessage(errors ? 'warning' : 'info', `${path.basename(uri.fsPath)}: ${told}.`);
      return result;
    }),
    vscode.commands.registerCommand(Command.renderTicket, (arg?: unknown) => {
      const uri = ticketOf(arg);
      return uri ? files.render(uri) : undefined;
    }),
  ];
}
