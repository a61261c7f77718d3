import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import {
  CodeActionKind,
  DiagnosticSeverity,
  TextDocuments,
  TextDocumentSyncKind,
  type Connection,
  type Diagnostic,
} from 'vscode-languageserver';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { CancelledError, errorMessage } from '../core/errors';
import type { TicketValidation } from '../core/stages/authoring/validateTicket';
import { codeActions } from './codeActions';
import { complete } from './completion';
import { heldOutLenses } from './heldOutView';
import { hover } from './hover';
import { ticketFindings, type PlacedFinding } from './ticketFindings';
import { ticketSource, TICKET_FILE } from './ticketFormats';
import type { TicketSource } from './ticketSource';
import { TicketWorkspace, workspaceRootOf } from './ticketWorkspace';
import { VALIDATE_REQUEST, type ValidateParams } from './protocol';

/** How long typing may pause before a ticket is checked again. */
export const DEBOUNCE_MS = 75;

const SEVERITY = {
  error: DiagnosticSeverity.Error,
  warning: DiagnosticSeverity.Warning,
  information: DiagnosticSeverity.Information,
} as const;

/** An open ticket's file, workspace and parsed source, or undefined for anything else. */
interface Ticket {
  file: string;
  rel: string;
  ws: TicketWorkspace;
  source: TicketSource;
}

/**
 * The ticket language server: diagnostics as you type (the checks of `ticket-runner validate`,
 * at their places in the text), completion, hover, a lens above each held-out case and quick fixes, for `.tickets/*.ticket.json`
 * and `.ticket.yaml`.
 * It reads the workspace and type-checks in memory; it never runs the workspace's code or
 * calls a model.
 */
export function startTicketServer(connection: Connection): void {
  const documents = new TextDocuments(TextDocument);
  const workspaces = new Map<string, TicketWorkspace>();
  const pending = new Map<string, { timer?: NodeJS.Timeout; controller: AbortController }>();

  const ticketOf = (uri: string, text: string): Ticket | undefined => {
    if (!uri.startsWith('file:')) return undefined;
    const file = fileURLToPath(uri);
    if (!TICKET_FILE.test(file.split('\\').join('/'))) return undefined;
    const source = ticketSource(file, text);
    if (!source) return undefined;
    const root = workspaceRootOf(file);
    let ws = workspaces.get(root);
    if (!ws) workspaces.set(root, (ws = new TicketWorkspace(root)));
    return { file, rel: ws.relative(file), ws, source };
  };

  const toDiagnostic = (doc: TextDocument, f: PlacedFinding): Diagnostic => ({
    range: { start: doc.positionAt(f.span.offset), end: doc.positionAt(f.span.offset + f.span.length) },
    severity: SEVERITY[f.severity],
    source: 'Ticket Runner',
    message: f.message,
    data: f.fix ? { fix: f.fix } : undefined,
  });

  /** Stops the check scheduled or under way for a ticket: a newer one replaces it. */
  const cancel = (uri: string) => {
    const p = pending.get(uri);
    p?.controller.abort();
    if (p?.timer) clearTimeout(p.timer);
    pending.delete(uri);
  };

  /** Checks a ticket's text; with types, publishes its findings as the ticket's diagnostics. */
  const check = async (doc: TextDocument, withTypes: boolean, signal: AbortSignal): Promise<TicketValidation | undefined> => {
    const ticket = ticketOf(doc.uri, doc.getText());
    if (!ticket) return undefined;
    try {
      const checks = withTypes ? ticket.ws.checks : { workspace: ticket.ws.checks.workspace };
      const { findings, validation } = await ticketFindings(checks, ticket.rel, ticket.source, signal, () => ticket.ws.listFiles());
      if (signal.aborted) return undefined;
      // A check that took longer than the next keystroke's does not put back older findings.
      const live = documents.get(doc.uri);
      if (withTypes && !(live && live.version > doc.version))
        await connection.sendDiagnostics({ uri: doc.uri, version: doc.version, diagnostics: findings.map((f) => toDiagnostic(doc, f)) });
      return validation;
    } catch (err) {
      if (!(err instanceof CancelledError) && !signal.aborted) connection.console.error(`checking ${ticket.rel}: ${errorMessage(err)}`);
      return undefined;
    }
  };

  /** Checks a ticket once typing pauses; a newer keystroke cancels the check scheduled or under way. */
  const schedule = (doc: TextDocument) => {
    cancel(doc.uri);
    const controller = new AbortController();
    const timer = setTimeout(() => {
      void check(doc, true, controller.signal).finally(() => pending.get(doc.uri)?.controller === controller && pending.delete(doc.uri));
    }, DEBOUNCE_MS);
    pending.set(doc.uri, { controller, timer });
  };

  connection.onInitialize(() => ({
    capabilities: {
      textDocumentSync: TextDocumentSyncKind.Incremental,
      completionProvider: { triggerCharacters: ['"', '/', '.'] },
      hoverProvider: true,
      codeLensProvider: { resolveProvider: false },
      codeActionProvider: { codeActionKinds: [CodeActionKind.QuickFix] },
    },
    serverInfo: { name: 'ticket-runner' },
  }));

  documents.onDidChangeContent((e) => schedule(e.document));
  documents.onDidClose((e) => {
    cancel(e.document.uri);
    void connection.sendDiagnostics({ uri: e.document.uri, diagnostics: [] });
  });

  /** A handler's answer, or its fallback with one logged line when the handler fails. */
  const guarded =
    <P, R>(what: string, fallback: R, handler: (p: P) => Promise<R>) =>
    async (p: P): Promise<R> => {
      try {
        return await handler(p);
      } catch (err) {
        connection.console.error(`${what}: ${errorMessage(err)}`);
        return fallback;
      }
    };

  const opened = (uri: string) => {
    const doc = documents.get(uri);
    const ticket = doc && ticketOf(uri, doc.getText());
    return doc && ticket ? { doc, ticket } : undefined;
  };

  connection.onCompletion(
    guarded('completion', [], async (p) => {
      const o = opened(p.textDocument.uri);
      return o ? complete(o.doc, o.ticket.source, o.ticket.ws, o.doc.offsetAt(p.position)) : [];
    }),
  );
  connection.onHover(
    guarded('hover', null, async (p) => {
      const o = opened(p.textDocument.uri);
      return o ? hover(o.doc, o.ticket.source, o.ticket.ws, o.ticket.rel, o.doc.offsetAt(p.position), new AbortController().signal) : null;
    }),
  );
  connection.onCodeLens(
    guarded('code lens', [], (p) => {
      const o = opened(p.textDocument.uri);
      return Promise.resolve(o ? heldOutLenses(o.doc, o.ticket.source, o.ticket.rel) : []);
    }),
  );
  connection.onCodeAction(
    guarded('code actions', [], async (p) => {
      const o = opened(p.textDocument.uri);
      return o ? codeActions(o.doc, o.ticket.source, o.ticket.ws, p.range, p.context.diagnostics) : [];
    }),
  );

  // Validate Ticket and Show Rendered Tests in the editor: the same check, now, on request.
  connection.onRequest(
    VALIDATE_REQUEST,
    guarded('validate', null, async (p: ValidateParams) => {
      const open = documents.get(p.uri);
      const text = open?.getText() ?? (await readFile(fileURLToPath(p.uri), 'utf8'));
      const doc = open ?? TextDocument.create(p.uri, 'json', 0, text);
      // Asked for now: it replaces a check scheduled by typing, and is not cancelled by the next one
      // (which publishes after it).
      if (p.types !== false) cancel(p.uri);
      return (await check(doc, p.types !== false, new AbortController().signal)) ?? null;
    }),
  );

  connection.onShutdown(() => {
    for (const uri of [...pending.keys()]) cancel(uri);
    for (const ws of workspaces.values()) ws.dispose();
    workspaces.clear();
  });

  documents.listen(connection);
  connection.listen();
}
