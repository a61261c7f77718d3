import * as vscode from 'vscode';
import type { RunResult } from '../../core';
import { FsWorkspace } from '../../node/workspace/fsWorkspace';
import { sha256 } from '../../node/store/fileRunStore';
import { announcement, OPEN_RUN, ROLL_BACK } from '../announcement';
import { showMessage, showNoticeUntil } from '../messages';
import type { RunService } from '../runService';
import { Command } from '../settings';
import { core } from './lazyCore';

/** Says how a run this window drove ended, with what the user can do next (see `announcement`). */
export async function announceEnd(runs: RunService, result: RunResult): Promise<void> {
  const known = runs.get(result.runId);
  let written = 0;
  if (known && result.state.status !== 'passed') {
    const { planRollback } = await core();
    written = await planRollback(
      { store: runs.store(known.folder), workspace: new FsWorkspace(known.folder.uri.fsPath), hash: sha256 },
      result.runId,
    ).then(
      (plan) => plan.steps.length,
      () => 0,
    );
  }
  const { level, text, actions, untilDecided } = announcement(result.state, written);
  if (untilDecided) return void showNoticeUntil(level, text, decided(runs, result.runId));
  const choice = await showMessage(level, text, ...actions);
  // Through the commands, as the palette would: the notice knows no view.
  if (choice === OPEN_RUN) await vscode.commands.executeCommand(Command.openRun, result.runId);
  if (choice === ROLL_BACK) await vscode.commands.executeCommand(Command.rollbackRun, result.runId);
}

/** Settles once the run no longer waits for a decision: decided (anywhere), rolled back, or deleted. */
function decided(runs: RunService, runId: string): Promise<void> {
  const waits = () => {
    const state = runs.get(runId)?.state;
    return state?.status === 'needsOperator' && !state.rolledBack && state.corrections.some((c) => c.status === 'pending');
  };
  return new Promise((resolve) => {
    if (!waits()) return resolve();
    const sub = runs.onDidChangeRun(() => {
      if (waits()) return;
      sub.dispose();
      resolve();
    });
  });
}
