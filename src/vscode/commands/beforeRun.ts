import * as vscode from 'vscode';
import { parseTicket } from '../../core/ticket/ticketLoader';
import { sha256 } from '../../node/store/fileRunStore';
import { FsWorkspace } from '../../node/workspace/fsWorkspace';
import type { LeftoverRun } from '../../core';
import { runName } from '../../core/run/views/runName';
import { ticketBaseName } from '../../core/ticket/ticketFormat';
import { leftoverDecision, leftoverQuestion, sampleLeftoverQuestion } from '../rollbackQuestion';
import { failedNotice } from '../runNotices';
import type { EditorRunSettings } from '../runSettings';
import { saveUnsavedScope } from '../unsavedScope';
import type { CommandContext } from './commandContext';
import { showError } from './commandError';
import { core } from './lazyCore';
import type { PickedTicket } from './ticketPick';

const ticketText = (picked: PickedTicket): Promise<string | undefined> =>
  Promise.resolve(vscode.workspace.fs.readFile(vscode.Uri.joinPath(picked.folder.uri, picked.rel))).then(
    (bytes) => Buffer.from(bytes).toString('utf8'),
    () => undefined,
  );

/**
 * Whether the picked ticket reads as one: a broken ticket is said now, in the words the run would
 * use, before any question about earlier runs, since there is no run to prepare for. A ticket
 * that cannot be read is left to the run, which says where it looked.
 */
export async function ticketParses(log: vscode.LogOutputChannel, picked: PickedTicket): Promise<boolean> {
  const text = await ticketText(picked);
  if (text === undefined) return true;
  try {
    parseTicket(picked.rel, text);
    return true;
  } catch (err) {
    showError(log, `Run of ${picked.rel} did not start`, err);
    return false;
  }
}

/** The scope's unsaved files are saved with the user's consent before the run reads them (`saveUnsavedScope`). */
export async function scopeSaved(picked: PickedTicket): Promise<boolean> {
  const text = await ticketText(picked);
  return text === undefined || saveUnsavedScope(picked.folder, picked.rel, text);
}

/**
 * Before a new run: earlier runs that left files as they wrote them are named, with the choice
 * to roll them back first or build on them. Runs that did not pass, always; passed ones too when
 * the run replays recorded answers (see LeftoverOptions). False when the user backed out.
 *
 * `sample`: the run replays the recorded sample, whose answers fit only the sample as it came.
 * Every earlier run is rolled back, newest first, after one question with no Run Anyway (see
 * `sampleLeftoverQuestion`), so the sample's tickets run in any order, again and again.
 */
export async function settleLeftovers(
  ctx: CommandContext,
  picked: PickedTicket,
  settings: EditorRunSettings,
  sample = false,
): Promise<boolean> {
  const { folder } = picked;
  const { leftoverRuns, rollbackRun } = await core();
  const io = { store: ctx.runs.store(folder), workspace: new FsWorkspace(folder.uri.fsPath), hash: sha256 };
  const states = ctx.runs
    .list()
    .filter((r) => r.folder.uri.toString() === folder.uri.toString() && !ctx.runs.isActive(r.state.runId))
    .map((r) => r.state);
  const scripted = sample || settings.editor.model === 'scripted';
  const leftovers = await leftoverRuns(io, states, { passed: scripted, overwritten: sample });
  if (!leftovers.length) return true;
  const now = new Date();
  const nameOf = (l: LeftoverRun) => runName(ctx.runs.get(l.runId)?.state ?? l, now);
  const question = sample
    ? sampleLeftoverQuestion(ticketBaseName(picked.rel), leftovers, nameOf)
    : leftoverQuestion(leftovers, scripted, nameOf);
  const choice = await vscode.window.showWarningMessage(question.message, { modal: true, detail: question.detail }, ...question.actions);
  const decision = leftoverDecision(question, choice);
  if (decision !== 'rollBackFirst') return decision === 'runAnyway';
  for (const l of leftovers) {
    try {
      // Never forced: a file changed since the run (by the user) stops its rollback, and is kept.
      await ctx.runs.drive(folder, ctx.runs.get(l.runId)!.state.ticketPath, (deps) => rollbackRun(deps, l.runId), {
        noModel: true,
        settings,
      });
    } catch (err) {
      showError(ctx.log, `${failedNotice('Rolling back', nameOf(l))}, so the run did not start`, err, l.runId);
      return false;
    }
    ctx.log.info(`run ${l.runId} rolled back before a new run`);
  }
  return true;
}
