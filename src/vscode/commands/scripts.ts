import * as vscode from 'vscode';
import { recordScriptText } from '../../node/models/scripted/recordScript';
import { showMessage } from '../messages';
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
  const target = await vscode.window.showSaveDialog({
    title: `Ticket Runner: Save run ${known.state.runId} as a script`,
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
    void showMessage(
      'info',
      `Saved ${known.state.modelCalls.length} model answer(s) of run ${known.state.runId} to ${vscode.workspace.asRelativePath(target)}. The scripted model replays it when it is the ticket's .script.json.`,
    );
    return target;
  } catch (err) {
    showError(ctx.log, `Saving run ${known.state.runId} as a script failed`, err);
    return undefined;
  }
}
