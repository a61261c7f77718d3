// A test extension: one command that answers at once, with the extension host's clock. Another
// extension's command answers only when the host's event loop is free, so the time it takes while
// Ticket Runner checks a run is how long the window's other extensions wait.
import * as vscode from 'vscode';

export function activate(context: vscode.ExtensionContext): void {
  context.subscriptions.push(vscode.commands.registerCommand('ticketRunnerTests.ping', () => Date.now()));
}
