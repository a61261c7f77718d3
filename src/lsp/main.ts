// The server's own bundle (dist/ticketServer.js), which the editor starts over stdio. The CLI's
// `ticket-runner lsp --stdio` serves the same server from dist/cli.js.
import { serveOverStdio } from './stdio';

serveOverStdio();
