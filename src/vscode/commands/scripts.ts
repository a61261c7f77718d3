import * as vscode from 'vscode';
import { recordScriptText } from '../../node/models/scripted/recordScript';
import { runName } from '../../core/run/views/runName';
import { showMessage } from '../messages';
import { failedNotice, saveScriptTitle, scriptSavedNotice } from '../runNotices';
import { defaultScriptPath, unsavable } from '../runScript';
import { Command } from '../settings';
import type { CommandContext } from './commandContext';
import { showError } from './commandError';
import { pickRun, type RunArg } from './pickRun';

/** Save Run as Script: the run's model answers as a script the scripted model replays. */
export function registerScriptCommands(ctx: CommandContext): vscode.Disposable[] {
  return [vscode.commands.registerCommand(Command.saveRunScript, (arg?: RunArg) => saveRunScript(ctx, arg))];
}

/** Writes the script where the operator says. */
async function saveRunScript(ctx: CommandContext, arg: RunArg): Promise<vscode.Uri | undefined> {
  const id = await pickRun(
    ctx.runs,
    arg,
    'Save which run as a script?',
    (s) => !unsavable(s, ctx.runs.isActive(s.runId)),
    'No run to save: none has stopped after a model call.',
  );
  const known = id ? ctx.runs.get(id) : undefined;
  if (!known) return undefined;
  const problem = unsavable(known.state, ctx.runs.isActive(known.state.runId));
  if (problem) return void showMessage('warning', problem);
  const name = runName(known.state, new Date());
  const target = await vscode.window.showSaveDialog({
    title: saveScriptTitle(name),
    defaultUri: vscode.Uri.file(defaultScriptPath(known.folder.uri.fsPath, known.state)),
    filters: { 'Ticket Runner script': ['json'] },
    saveLabel: 'Save Script',
  });
  if (!target) return undefined;
  try {
    const store = ctx.runs.store(known.folder);
    const text = await recordScriptText(known.state, (hash) => store.getBlob(known.state.runId, hash));
    await vscode.workspace.fs.writeFile(target, Buffer.from(text, 'utf8'));
    ctx.log.info(`run ${known.state.runId} saved as a script: ${target.fsPath}`);
    void showMessage('info', scriptSavedNotice(name, known.state.modelCalls.length, vscode.workspace.asRelativePath(target)));
    return target;
  } catch (err) {
    showError(ctx.log, failedNotice('Saving', `${name} as a script`), err, known.state.runId);
    return undefined;
  }
}
