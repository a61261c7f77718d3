import { createConnection, StreamMessageReader, StreamMessageWriter } from 'vscode-languageserver/node';
import { startTicketServer } from './server';

/** Serves the ticket language server on this process's stdin and stdout until the client exits it. */
export function serveOverStdio(): void {
  startTicketServer(createConnection(new StreamMessageReader(process.stdin), new StreamMessageWriter(process.stdout)));
}
