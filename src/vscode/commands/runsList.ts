import * as vscode from 'vscode';
import type { RunResult } from '../../core';
import { runName } from '../../core/run/views/runName';
import { FsWorkspace } from '../../node/workspace/fsWorkspace';
import { sha256 } from '../../node/store/fileRunStore';
import { folderRunSettings } from '../folderSettings';
import { showMessage } from '../messages';
import { rollbackQuestion } from '../rollbackQuestion';
import { deleteQuestion, failedNotice, rolledBackNotice } from '../runNotices';
import type { KnownRun } from '../runService';
import { Command } from '../settings';
import type { CommandContext } from './commandContext';
import { showError } from './commandError';
import { core } from './lazyCore';
import { pickRun, type RunArg } from './pickRun';
import { driveOn } from './runProgress';
import { requireTrust } from './workspaceTrust';

/** What the runs view and the palette do with a run once it exists: open, replay, its log, delete, roll back, resume, refresh. */
export function registerRunsListCommands(ctx: CommandContext): vscode.Disposable[] {
  const reg = (id: string, fn: (...args: never[]) => unknown) => vscode.commands.registerCommand(id, fn);
  return [
    // `how`: the runs tree's click keeps the focus in the tree; the palette and the menus move it to the page.
    reg(Command.openRun, async (arg?: RunArg, how?: { preserveFocus?: boolean }) => {
      const id = await pickRun(ctx.runs, arg, 'Open which run?');
      if (id) ctx.panels.open(id, 'live', how?.preserveFocus === true);
    }),
    reg(Command.replayRun, async (arg?: RunArg) => {
      const id = await pickRun(ctx.runs, arg, 'Replay which run?');
      if (id) ctx.panels.open(id, 'replay');
    }),
    reg(Command.revealLog, (arg?: RunArg) => revealLog(ctx, arg)),
    reg(Command.deleteRun, (arg?: RunArg, confirmed?: boolean) => deleteRun(ctx, arg, confirmed)),
    reg(Command.rollbackRun, (arg?: RunArg, confirmed?: boolean) => rollBack(ctx, arg, confirmed)),
    reg(Command.resumeRun, (arg?: RunArg) => resume(ctx, arg)),
    reg(Command.refreshRuns, () => ctx.runs.refresh()),
  ];
}

async function revealLog(ctx: CommandContext, arg: RunArg): Promise<void> {
  const id = await pickRun(ctx.runs, arg, 'Reveal the log of which run?');
  const known = id ? ctx.runs.get(id) : undefined;
  if (!known) return;
  const uri = vscode.Uri.file(ctx.runs.store(known.folder).logPath(known.state.runId));
  await vscode.window.showTextDocument(uri, { preview: true });
  void vscode.commands.executeCommand('revealInExplorer', uri);
}

/** `confirmed`: the caller asked already (a test); the tree and the palette ask first. */
async function deleteRun(ctx: CommandContext, arg: RunArg, confirmed: boolean | undefined): Promise<void> {
  const id = await pickRun(ctx.runs, arg, 'Delete which run?');
  if (!id) return;
  if (ctx.runs.isActive(id)) return void showMessage('warning', 'This run is still going: cancel it first.');
  if (confirmed !== true) {
    const known = ctx.runs.get(id);
    const name = known ? runName(known.state, new Date()) : 'this run';
    if ((await vscode.window.showWarningMessage(deleteQuestion(name), { modal: true }, 'Delete')) !== 'Delete') return;
  }
  await ctx.runs.delete(id);
  ctx.log.info(`run ${id} deleted`);
}

async function rollBack(ctx: CommandContext, arg: RunArg, confirmed: boolean | undefined): Promise<RunResult | undefined> {
  if (!requireTrust()) return;
  const id = await pickRun(
    ctx.runs,
    arg,
    'Roll back which run?',
    (st) => !st.rolledBack && !ctx.runs.isActive(st.runId),
    'No run to roll back: every run is rolled back or still going.',
  );
  const known = id ? ctx.runs.get(id) : undefined;
  if (!known || !id) return;
  const name = runName(known.state, new Date());
  try {
    const { planRollback, rollbackRun } = await core();
    let force = false;
    if (confirmed !== true) {
      // The same check as the CLI's, asked rather than refused: the list says what would be lost.
      const plan = await planRollback(
        { store: ctx.runs.store(known.folder), workspace: new FsWorkspace(known.folder.uri.fsPath), hash: sha256 },
        id,
      );
      const { message, detail, action } = rollbackQuestion(plan, name);
      if ((await vscode.window.showWarningMessage(message, { modal: true, detail }, action)) !== action) return;
      force = plan.conflicts.length > 0;
    }
    const result = await ctx.runs.drive(known.folder, known.state.ticketPath, (deps) => rollbackRun(deps, id, { force }), {
      noModel: true,
    });
    ctx.log.info(`run ${id} rolled back`);
    void showMessage('info', rolledBackNotice(name));
    return result;
  } catch (err) {
    showError(ctx.log, failedNotice('Rolling back', name), err, id);
  }
}

async function resume(ctx: CommandContext, arg: RunArg): Promise<RunResult | undefined> {
  if (!requireTrust()) return;
  const id = await pickRun(ctx.runs, arg, 'Resume which run?', (st) =>
    ['interrupted', 'cancelled'].includes(ctx.runs.statusOf(st.runId) ?? ''),
  );
  const known = id ? ctx.runs.get(id) : undefined;
  if (!known || !id) return;
  try {
    return await resumeInWindow(ctx, known);
  } catch (err) {
    showError(ctx.log, failedNotice('Resuming', runName(known.state, new Date())), err, id);
  }
}

/** Continues an interrupted or cancelled run from its log, with a cancellable progress notification. */
async function resumeInWindow(ctx: CommandContext, known: KnownRun): Promise<RunResult> {
  const { runId } = known.state;
  const settings = folderRunSettings(known.folder);
  const status = ctx.runs.statusOf(runId);
  const reason =
    status === 'cancelled'
      ? 'cancelled, resumed by the operator'
      : `interrupted: its process${known.state.owner ? ` (pid ${known.state.owner.pid})` : ''} is gone`;
  const { resumeRun } = await core();
  return driveOn(
    ctx.runs,
    known,
    `resuming ${known.state.ticketId}`,
    (deps, signal) => resumeRun(deps, runId, { reason, signal, recovery: settings.run.recovery }),
    { settings },
  );
}
