import * as vscode from 'vscode';
import { confirmAccept } from '../acceptQuestion';
import { runName } from '../../core/run/views/runName';
import { showMessage } from '../messages';
import { nothingToAcceptNotice } from '../runNotices';
import { Command } from '../settings';
import type { CommandContext } from './commandContext';
import { showError } from './commandError';
import { pickRun, type RunArg } from './pickRun';

/** Accept and Reject of a run's correction request, from the runs view and the palette. */
export function registerCorrectionCommands(ctx: CommandContext): vscode.Disposable[] {
  return [
    // `confirmed`: the caller already showed the proposal (a test); the tree and the palette ask first.
    vscode.commands.registerCommand(Command.acceptCorrection, (arg?: RunArg, confirmed?: boolean) => acceptCorrection(ctx, arg, confirmed)),
    vscode.commands.registerCommand(Command.rejectCorrection, (arg?: RunArg, reason?: string) => rejectCorrection(ctx, arg, reason)),
  ];
}

async function acceptCorrection(ctx: CommandContext, arg: RunArg, confirmed: boolean | undefined) {
  const id = await pickRun(ctx.runs, arg, 'Accept the correction request of which run?', (s) => s.status === 'needsOperator');
  if (!id) return;
  try {
    const known = ctx.runs.get(id);
    if (!known || confirmed === true) return await ctx.corrections.decide(id, 'accept', undefined);
    // The log, not the window's copy of it: the request may have come in a moment ago.
    const state = (await ctx.runs.reload(known.folder, id)) ?? known.state;
    if (!state.corrections.some((c) => c.status === 'pending'))
      return void showMessage('info', nothingToAcceptNotice(runName(state, new Date())));
    const requestId = await confirmAccept(state, ctx.panels.proposals);
    if (!requestId) return;
    // Decided while the modal was open (the run view's Accept): say so; the core refuses it anyway.
    const now = ctx.runs.get(id)?.state.corrections.find((c) => c.request.id === requestId);
    if (now && now.status !== 'pending')
      return void showMessage('info', `The correction of ${known.state.ticketId} was already ${now.status}: nothing to accept.`);
    return await ctx.corrections.decide(id, 'accept', undefined, 'vscode', requestId);
  } catch (err) {
    showError(ctx.log, 'Accept failed', err);
  }
}

async function rejectCorrection(ctx: CommandContext, arg: RunArg, reason: string | undefined) {
  const id = await pickRun(ctx.runs, arg, 'Reject the correction request of which run?', (s) => s.status === 'needsOperator');
  if (!id) return;
  const why =
    reason ??
    (await vscode.window.showInputBox({
      title: 'Why is the proposed change wrong?',
      prompt: 'The reason goes into the run log.',
      validateInput: (v) => (v.trim() ? undefined : 'A rejection needs a reason.'),
    }));
  if (!why) return;
  try {
    return await ctx.corrections.decide(id, 'reject', why);
  } catch (err) {
    showError(ctx.log, 'Reject failed', err);
  }
}
