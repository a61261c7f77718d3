import * as vscode from 'vscode';
import { readRunSettings, type EditorRunSettings } from './runSettings';
import { SECTION } from './settings';

/** The settings of one run in `folder`: read by whoever starts the run, then handed down (see EditorRunSettings). */
export function folderRunSettings(folder: vscode.WorkspaceFolder): EditorRunSettings {
  return readRunSettings(vscode.workspace.getConfiguration(SECTION, folder.uri));
}
