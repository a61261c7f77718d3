import { spawn, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  createProtocolConnection,
  PublishDiagnosticsNotification,
  StreamMessageReader,
  StreamMessageWriter,
  type Diagnostic,
  type ProtocolConnection,
} from 'vscode-languageserver-protocol/node';
import { copyFixture, REPO_ROOT } from './tempWorkspace';

/** A published diagnostic; this server's messages are plain text. */
export type TicketDiagnostic = Omit<Diagnostic, 'message'> & { message: string };

/**
 * The real ticket language server (`node dist/cli.js lsp --stdio`) in a child process, driven
 * with vscode-languageserver-protocol messages: what an editor's client sends, and what it gets.
 */
export class LspSession {
  readonly connection: ProtocolConnection;
  private readonly published: { uri: string; version?: number; diagnostics: TicketDiagnostic[] }[] = [];
  private readonly waiters: (() => void)[] = [];
  private stderr = '';

  private constructor(
    private readonly child: ChildProcess,
    readonly root: string,
  ) {
    this.connection = createProtocolConnection(new StreamMessageReader(child.stdout!), new StreamMessageWriter(child.stdin!));
    child.stderr!.on('data', (d: Buffer) => (this.stderr += d.toString()));
    this.connection.onNotification(PublishDiagnosticsNotification.type, (p) => {
      this.published.push({
        ...p,
        diagnostics: p.diagnostics.map((d) => ({ ...d, message: typeof d.message === 'string' ? d.message : d.message.value })),
      });
      for (const w of this.waiters.splice(0)) w();
    });
    this.connection.listen();
  }

  /** Starts the server for the workspace at `root` and initializes it. */
  static async start(root: string): Promise<LspSession> {
    const child = spawn(process.execPath, [path.join(REPO_ROOT, 'dist', 'cli.js'), 'lsp', '--stdio'], {
      cwd: root,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const session = new LspSession(child, root);
    await session.connection.sendRequest('initialize', {
      processId: process.pid,
      rootUri: pathToFileURL(root).href,
      capabilities: {},
      workspaceFolders: null,
    });
    await session.connection.sendNotification('initialized', {});
    return session;
  }

  uri(rel: string): string {
    return pathToFileURL(path.join(this.root, rel)).href;
  }

  async open(rel: string, text: string, version = 1): Promise<string> {
    const uri = this.uri(rel);
    await this.connection.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'json', version, text } });
    return uri;
  }

  async change(uri: string, text: string, version: number): Promise<void> {
    await this.connection.sendNotification('textDocument/didChange', { textDocument: { uri, version }, contentChanges: [{ text }] });
  }

  /** The next diagnostics published for `uri` at `version` (or later), waiting up to `timeoutMs`. */
  async diagnostics(uri: string, version: number, timeoutMs = 60_000): Promise<TicketDiagnostic[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.published.find((p) => p.uri === uri && (p.version ?? 0) >= version);
      if (found) return found.diagnostics;
      const left = deadline - Date.now();
      if (left <= 0)
        throw new Error(`no diagnostics for ${uri} at version ${version} within ${timeoutMs} ms; server stderr: ${this.stderr}`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  async close(): Promise<void> {
    await this.connection.sendRequest('shutdown').catch(() => undefined);
    await this.connection.sendNotification('exit').catch(() => undefined);
    await new Promise<void>((resolve) => {
      if (this.child.exitCode !== null) return resolve();
      const t = setTimeout(() => {
        this.child.kill();
        resolve();
      }, 5000);
      this.child.once('exit', () => {
        clearTimeout(t);
        resolve();
      });
    });
    this.connection.dispose();
  }
}

/** Applies LSP text edits to a text (edits of one document, in any order, not overlapping). */
export function applyEdits(
  text: string,
  edits: readonly { range: { start: { line: number; character: number }; end: { line: number; character: number } }; newText: string }[],
): string {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text[i] === '\n') starts.push(i + 1);
  const at = (p: { line: number; character: number }) => starts[p.line]! + p.character;
  return [...edits]
    .sort((a, b) => at(b.range.start) - at(a.range.start))
    .reduce((t, e) => t.slice(0, at(e.range.start)) + e.newText + t.slice(at(e.range.end)), text);
}

/** The LSP position of the first occurrence of `needle` in `text`, plus `delta` characters. */
export function positionOf(text: string, needle: string, delta = 0): { line: number; character: number } {
  const offset = text.indexOf(needle);
  if (offset < 0) throw new Error(`"${needle}" is not in the text`);
  const before = text.slice(0, offset + delta);
  return { line: before.split('\n').length - 1, character: offset + delta - (before.lastIndexOf('\n') + 1) };
}

/** The text a diagnostic's range covers. */
export function textAt(
  text: string,
  d: { range: { start: { line: number; character: number }; end: { line: number; character: number } } },
): string {
  const lines = text.split('\n');
  const offset = (p: { line: number; character: number }) => lines.slice(0, p.line).reduce((n, l) => n + l.length + 1, 0) + p.character;
  return text.slice(offset(d.range.start), offset(d.range.end));
}

/** A copy of the blog-api fixture and the server on it, for the tests of one describe block. */
export function serveFixture(): { readonly lsp: LspSession; readonly root: string } {
  let ws: ReturnType<typeof copyFixture> | undefined;
  let lsp: LspSession | undefined;
  before(async () => {
    ws = copyFixture();
    lsp = await LspSession.start(ws.root);
  });
  after(async () => {
    await lsp?.close();
    ws?.dispose();
  });
  return {
    get lsp() {
      return lsp!;
    },
    get root() {
      return ws!.root;
    },
  };
}
