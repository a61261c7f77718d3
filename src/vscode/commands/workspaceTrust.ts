import * as vscode from 'vscode';
import { showMessage } from '../messages';

export const UNTRUSTED_MESSAGE =
  "Ticket Runner starts no run in an untrusted workspace: a run executes the workspace's tests and writes code. Past runs stay viewable. Trust the workspace (Workspaces: Manage Workspace Trust) to run tickets.";

/**
 * Run Ticket stays visible in an untrusted workspace (not disabled), so a user who looks for it
 * learns why nothing starts, and can go straight to the trust editor.
 */
export function requireTrust(): boolean {
  if (vscode.workspace.isTrusted) return true;
  void showMessage('warning', UNTRUSTED_MESSAGE, 'Manage Workspace Trust').then((choice) => {
    if (choice) void vscode.commands.executeCommand('workbench.trust.manage');
  });
  return false;
}
