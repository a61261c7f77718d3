import { UserInputError } from '../../core/errors';
import { defineCommand } from '../command';
import { EXIT } from '../exitCodes';

export const lspCommand = defineCommand({
  name: 'lsp',
  synopsis: 'lsp --stdio',
  summary: 'the ticket language server, for any LSP editor',
  help: `Usage: ticket-runner lsp --stdio

The ticket language server over stdin and stdout, for any editor with an LSP client: the
findings of validate as you type in .tickets/*.ticket.json (at their place in the text),
completion of scope paths, refs symbols, criterion ids and expectation kinds, hover with the
rendered test, a ref's type and a file's exports, and quick fixes. The workspace of a ticket
is the folder that holds its .tickets/ folder.`,
  options: { stdio: { type: 'boolean' } },
  async run({ flags }) {
    if (flags.stdio !== true) throw new UserInputError('lsp speaks over stdio only: run ticket-runner lsp --stdio');
    // Loaded here: the server's libraries are not every command's. It lives until the client exits it.
    (await import('../../lsp/stdio.js')).serveOverStdio();
    return EXIT.passed;
  },
});
