import * as vscode from 'vscode';
import { LanguageClient, TransportKind, type LanguageClientOptions, type ServerOptions } from 'vscode-languageclient/node';
import type { TicketValidation } from '../core/stages/authoring/validateTicket';
import { VALIDATE_REQUEST, type ValidateParams } from '../lsp/protocol';
import { Disposable, toDisposable } from './dispose';

/** The ticket files the client hands the server (the server's own TICKET_FILE, as a glob). */
export const TICKET_SELECTOR: vscode.DocumentSelector = [{ scheme: 'file', pattern: '**/.tickets/*.ticket.{json,yaml,yml}' }];

/**
 * The editor's side of the ticket language server (dist/ticketServer.js, the same server as
 * `ticket-runner lsp --stdio`): started when the first ticket is open, it brings the server's
 * diagnostics, completion, hover and quick fixes to ticket files. The server is its own process
 * and never imports vscode.
 */
export class TicketLanguageClient extends Disposable {
  private client: Promise<LanguageClient> | undefined;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly log: vscode.LogOutputChannel,
  ) {
    super();
    const startFor = (doc: vscode.TextDocument) => vscode.languages.match(TICKET_SELECTOR, doc) > 0 && void this.started();
    this._register(vscode.workspace.onDidOpenTextDocument(startFor));
    vscode.workspace.textDocuments.forEach(startFor);
    this._register(toDisposable(() => void this.client?.then((c) => c.stop()).catch(() => undefined)));
  }

  /** The running client, started on first use. */
  started(): Promise<LanguageClient> {
    this.client ??= (async () => {
      const module = vscode.Uri.joinPath(this.extensionUri, 'dist', 'ticketServer.js').fsPath;
      const serverOptions: ServerOptions = {
        run: { module, transport: TransportKind.stdio },
        debug: { module, transport: TransportKind.stdio },
      };
      const clientOptions: LanguageClientOptions = {
        documentSelector: TICKET_SELECTOR as LanguageClientOptions['documentSelector'],
        diagnosticCollectionName: 'ticket-runner-tickets',
        outputChannel: this.log,
      };
      const client = new LanguageClient('ticketRunner.tickets', 'Ticket Runner tickets', serverOptions, clientOptions);
      await client.start();
      this.log.info('ticket language server started');
      return client;
    })();
    return this.client;
  }

  /**
   * Checks a ticket now (Validate Ticket, Show Rendered Tests): the server answers its findings
   * and rendered tests; with `types`, it publishes the findings as the ticket's diagnostics
   * before it answers.
   */
  async validate(uri: vscode.Uri, types: boolean): Promise<TicketValidation | undefined> {
    const client = await this.started();
    const params: ValidateParams = { uri: client.code2ProtocolConverter.asUri(uri), types };
    // The client converts published diagnostics asynchronously: the answer may arrive first.
    const shown = types ? diagnosticsChanged(uri, SHOWN_WAIT_MS) : Promise.resolve();
    const result = (await client.sendRequest<TicketValidation | null>(VALIDATE_REQUEST, params)) ?? undefined;
    await shown;
    return result;
  }
}

/** How long Validate Ticket waits for its findings to reach the Problems view after the answer. */
const SHOWN_WAIT_MS = 2000;

function diagnosticsChanged(uri: vscode.Uri, timeoutMs: number): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      listener.dispose();
      resolve();
    };
    const timer = setTimeout(done, timeoutMs);
    const listener = vscode.languages.onDidChangeDiagnostics((e) => e.uris.some((u) => u.toString() === uri.toString()) && done());
  });
}
