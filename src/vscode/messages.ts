import * as vscode from 'vscode';

export type MessageLevel = 'info' | 'warning' | 'error';

/** A notification the extension showed: its level and its text. */
export interface ShownMessage {
  level: MessageLevel;
  text: string;
}

const shown = new vscode.EventEmitter<ShownMessage>();

/**
 * Fires for every notification the extension shows (modal questions aside). Nothing in the
 * extension listens: it exists only so that the integration suite can see what the user was
 * told, which VS Code's API cannot read back. It changes no behaviour.
 */
export const onDidShowMessage = shown.event;

/** Shows a notification, as vscode.window.show*Message does, and lets onDidShowMessage see it. */
export function showMessage(level: MessageLevel, text: string, ...actions: string[]): Thenable<string | undefined> {
  shown.fire({ level, text });
  switch (level) {
    case 'info':
      return vscode.window.showInformationMessage(text, ...actions);
    case 'warning':
      return vscode.window.showWarningMessage(text, ...actions);
    case 'error':
      return vscode.window.showErrorMessage(text, ...actions);
  }
}
