import * as vscode from 'vscode';
import type { PipelineDeps, RunResult } from '../../core';
import { runStage, withinAStep } from '../../core/run/views/stage';
import type { RunEvent } from '../../core/schema/events';
import type { KnownRun, RunService } from '../runService';
import type { EditorRunSettings } from '../runSettings';
import { announceEnd } from './announceEnd';

/**
 * The progress notification's line: the step the run is in now, in the run view's words, so the
 * two never name different steps. The run service has reduced the event before this sees it.
 */
export function stageReporter(runs: RunService, progress: vscode.Progress<{ message?: string }>): (e: RunEvent) => void {
  let step: RunEvent | undefined;
  let said: string | undefined;
  return (e) => {
    if (!withinAStep(e)) step = e;
    const state = runs.get(e.runId)?.state;
    const label = state && step ? runStage(state, [step])?.label : undefined;
    if (label && label !== said) progress.report({ message: (said = label) });
  };
}

/**
 * Drives a run on from its log (resume, a decision) under a cancellable progress notification,
 * and says how it ended. `settings`: those the caller read and gave `body`'s core call.
 */
export async function driveOn(
  runs: RunService,
  known: KnownRun,
  title: string,
  body: (deps: PipelineDeps, signal: AbortSignal) => Promise<RunResult>,
  o: { settings: EditorRunSettings; noModel?: boolean },
): Promise<RunResult> {
  const result = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `Ticket Runner: ${title}`, cancellable: true },
    (progress, token) =>
      runs.drive(known.folder, known.state.ticketPath, body, {
        cancel: token,
        continuesRun: known.state.runId,
        noModel: o.noModel ?? false,
        settings: o.settings,
        // A scripted run (the recorded sample) goes on with its recorded answers, whatever the setting says now.
        ...(known.state.model?.scripted ? { model: 'scripted' as const } : {}),
        onEvent: stageReporter(runs, progress),
      }),
  );
  void announceEnd(runs, result);
  return result;
}
