import * as vscode from 'vscode';
import type { RunResult } from '../../core';
import { FsWorkspace } from '../../node/workspace/fsWorkspace';
import { sha256 } from '../../node/store/fileRunStore';
import { announcement, OPEN_RUN, ROLL_BACK } from '../announcement';
import { showMessage, showNoticeUntil } from '../messages';
import type { RunService } from '../runService';
import { Command } from '../settings';
import { runName } from '../../core/run/views/runName';
import { staleRollBackNotice } from '../runNotices';
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
  if (choice !== ROLL_BACK) return;
  // The offer stays in the notification centre after its toast: by the time it is pressed the run
  // may be rolled back or deleted, which is said rather than asked again.
  const now = runs.get(result.runId)?.state;
  if (!now || now.rolledBack) return void showMessage('info', staleRollBackNotice(runName(now ?? result.state, new Date()), !now));
  await vscode.commands.executeCommand(Command.rollbackRun, result.runId);
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
