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

/**
 * A notification that closes by itself when `until` settles (a notification of showMessage stays
 * until the user closes it): for what stops being true on its own, as a decision made elsewhere.
 */
export function showNoticeUntil(level: MessageLevel, text: string, until: Promise<unknown>): Thenable<void> {
  shown.fire({ level, text });
  return vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: text, cancellable: false }, () =>
    until.then(
      () => undefined,
      () => undefined,
    ),
  );
}
