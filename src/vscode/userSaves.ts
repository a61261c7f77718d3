import { createHash } from 'node:crypto';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { UserSaves } from '../node/testRunners/treeTestRunner';

/** How long a save is remembered: longer than any test command runs. */
const REMEMBER_MS = 60 * 60 * 1000;

interface Save {
  digest: string;
  at: number;
}

/**
 * The user's saves as the editor made them, by file: the text of each, hashed, and when. Without
 * the OS sandbox a run cannot keep a test command out of the workspace, and a file that changed
 * while one ran is the user's only when the editor saved exactly that text: any other stops the
 * run. One for the extension's life, from its activation.
 */
export class SaveLog implements vscode.Disposable {
  private readonly saves = new Map<string, Save[]>();
  private readonly listener = vscode.workspace.onDidSaveTextDocument((doc) => this.note(doc));

  dispose(): void {
    this.listener.dispose();
    this.saves.clear();
  }

  /** What a run of `root` asks. */
  of(root: string): UserSaves {
    return {
      saved: (rel, digest, since) => (this.saves.get(path.join(root, rel)) ?? []).some((s) => s.at >= since && s.digest === digest),
    };
  }

  private note(doc: vscode.TextDocument): void {
    if (doc.uri.scheme !== 'file') return;
    const now = Date.now();
    const digest = createHash('sha256').update(doc.getText(), 'utf8').digest('hex');
    const kept = (this.saves.get(doc.uri.fsPath) ?? []).filter((s) => now - s.at < REMEMBER_MS);
    this.saves.set(doc.uri.fsPath, [...kept, { digest, at: now }]);
  }
}
