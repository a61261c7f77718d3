import type * as vscode from 'vscode';
import type { ModelSetup } from '../modelSetup';
import type { RunPanels } from '../runPanel';
import type { RunService } from '../runService';
import type { CorrectionService } from './correctionService';

/** What the extension's commands act through, built before them in extension.ts. */
export interface CommandContext {
  runs: RunService;
  panels: RunPanels;
  models: ModelSetup;
  corrections: CorrectionService;
  log: vscode.LogOutputChannel;
}
