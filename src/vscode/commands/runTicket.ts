import * as vscode from 'vscode';
import type { RunResult } from '../../core';
import { describeUncommitted } from '../../core/run/views/report';
import { ticketBaseName } from '../../core/ticket/ticketFormat';
import { scriptPathFor } from '../../node/models/scripted/loadScript';
import { folderRunSettings } from '../folderSettings';
import { showMessage } from '../messages';
import type { PreparedPanel } from '../runPanel';
import type { EditorRunSettings } from '../runSettings';
import { Command } from '../settings';
import { announceEnd } from './announceEnd';
import { scopeSaved, settleLeftovers, ticketParses } from './beforeRun';
import type { CommandContext } from './commandContext';
import { showError } from './commandError';
import { core } from './lazyCore';
import { stageReporter } from './runProgress';
import { pickTicket, relTo, scriptPaths, ticketInEditor, type PickedTicket } from './ticketPick';
import { requireTrust } from './workspaceTrust';
import { NO_CHAT_MODEL, noRecordingQuestion, PICK_RECORDED, wayOf } from '../waysIn';

/**
 * How long a new run waits, once started, for its view to show its first event before its
 * heavy work begins (see RunOptions.shown): a page loads in under a second when the run does
 * not compete with it for the CPU.
 */
const FIRST_EVENT_WAIT_MS = 3000;

/** The ticket Run Ticket was given, or the open ticket its list offers first; and whether the run replays the recorded sample. */
type GivenTicket = ({ picked: PickedTicket } | { first?: string }) & { recorded: boolean };

/** A ticket every question before its run has let through, with the settings its run reads once. */
interface ReadyTicket extends PickedTicket {
  settings: EditorRunSettings;
}

/** Run Ticket, and Try the Recorded Sample: the same run, replayed from a ticket's recorded answers. */
export function registerRunCommands(ctx: CommandContext): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand(Command.runTicket, (uri?: vscode.Uri) => runTicket(ctx, uri)),
    vscode.commands.registerCommand(Command.tryRecordedSample, (uri?: vscode.Uri) =>
      runTicket(ctx, uri instanceof vscode.Uri ? uri : undefined, { recorded: true }),
    ),
  ];
}

/**
 * Runs a ticket with a cancellable progress notification; resolves with the run's result.
 * `recorded`: the recorded sample, a ticket replayed with the scripted model from its saved answers.
 */
async function runTicket(ctx: CommandContext, target?: vscode.Uri, o: { recorded?: boolean } = {}): Promise<RunResult | undefined> {
  if (!requireTrust()) return undefined;
  // Trying the sample chooses it as the workspace's way: Run Ticket replays from then on, and asks no more.
  if (o.recorded === true) await ctx.models.setWay('sample');
  // The model first: without one the run would stop before its first step, after the ticket was picked.
  const way = o.recorded === true ? true : await replaysSample(ctx, target);
  if (way === undefined) return undefined;
  const given = await givenTicket(ctx, target, way);
  if (!given) return undefined;
  const { recorded } = given;
  const picked = 'picked' in given ? given.picked : await pickTicket(given.first, recorded);
  if (!picked) return undefined;
  // Before its view and its questions: the run service would refuse the run anyway, after them.
  const busy = ctx.runs.planBusy(picked.folder);
  if (busy) return void showMessage('error', `Ticket Runner: ${picked.rel} did not start: ${busy}.`);
  // The run's view opens once its ticket is known (not behind the list, as an empty tab), so its
  // page loads during the questions before the run; the run's first event binds it.
  const view = ctx.panels.prepare(`Run: ${ticketBaseName(picked.rel)}`);
  let ready: ReadyTicket | undefined;
  try {
    ready = await readyToRun(ctx, picked, recorded);
  } finally {
    if (!ready) view.release();
  }
  return ready && runInView(ctx, ready, view, recorded);
}

/** Whether the run replays the recorded sample, the user's way in when the model setting can run none; undefined when they backed out. */
async function replaysSample(ctx: CommandContext, target: vscode.Uri | undefined): Promise<boolean | undefined> {
  const way = await ctx.models.ensure(folderOf(target), 'run');
  return way && way === 'sample';
}

/** The folder a run's model setting is read from: the ticket's, else the window's first. */
function folderOf(target: vscode.Uri | undefined): vscode.WorkspaceFolder | undefined {
  const editorUri = target instanceof vscode.Uri ? target : vscode.window.activeTextEditor?.document.uri;
  return (editorUri && vscode.workspace.getWorkspaceFolder(editorUri)) ?? vscode.workspace.workspaceFolders?.[0];
}

/**
 * The ticket given, or else the one in the active editor; undefined (said) when it lies in no
 * workspace folder. The recorded sample replays only a ticket with recorded answers: a ticket
 * without them is never swapped for one of the sample's. The user is asked instead, and may run
 * it with a model (the run is then no replay) or pick one of the sample's tickets.
 */
async function givenTicket(ctx: CommandContext, target: vscode.Uri | undefined, recorded: boolean): Promise<GivenTicket | undefined> {
  let first: string | undefined;
  if (!(target instanceof vscode.Uri)) ({ target, first } = await ticketInEditor());
  const mine = target?.path ?? first;
  if (recorded && mine !== undefined && !(await scriptPaths()).has(scriptPathFor(mine))) {
    const answer = await runWithoutRecording(ctx, mine, folderOf(target));
    if (!answer) return undefined;
    if (answer === 'pick') return { first: undefined, recorded };
    recorded = false;
    // The question named this ticket: it is the one that runs, not the first of a list.
    target ??= vscode.Uri.from({ scheme: 'file', path: mine });
  }
  if (!target) return { first, recorded };
  const folder = vscode.workspace.getWorkspaceFolder(target);
  if (!folder) return void showMessage('error', `${target.fsPath} is not in a workspace folder.`);
  return { picked: { folder, rel: relTo(folder, target) }, recorded };
}

/**
 * The question for a ticket the recorded sample cannot replay: 'setting' once a model can run it
 * (the key or the editor's model taken), 'pick' for the sample's list, undefined when backed out.
 */
async function runWithoutRecording(
  ctx: CommandContext,
  ticketPath: string,
  folder: vscode.WorkspaceFolder | undefined,
): Promise<'setting' | 'pick' | undefined> {
  const q = noRecordingQuestion(ticketBaseName(ticketPath));
  const choice = await vscode.window.showInformationMessage(q.message, { modal: true, detail: q.detail }, ...q.actions);
  ctx.log.info(`run ticket ${ticketPath}: no recorded answers; chosen: ${choice ?? 'none'}`);
  if (choice === PICK_RECORDED) return 'pick';
  const way = wayOf(choice);
  if (way !== 'key' && way !== 'editor') return undefined;
  const used = await ctx.models.takeWay(way);
  if (used === false) void showMessage('warning', NO_CHAT_MODEL);
  if (!used) return undefined;
  return (await ctx.models.missing(folder)) ? undefined : 'setting';
}

/** Each question before a run, in order; undefined when one stops it. */
async function readyToRun(ctx: CommandContext, picked: PickedTicket, recorded: boolean): Promise<ReadyTicket | undefined> {
  if (!(await ticketParses(ctx.log, picked)) || !(await scopeSaved(picked))) return undefined;
  const settings = folderRunSettings(picked.folder);
  return (await settleLeftovers(ctx, picked, settings, recorded)) ? { ...picked, settings } : undefined;
}

/** Starts the run in the view prepared for it, under a cancellable progress notification, and says how it ended. */
async function runInView(
  ctx: CommandContext,
  { folder, rel, settings }: ReadyTicket,
  view: PreparedPanel,
  recorded: boolean,
): Promise<RunResult | undefined> {
  view.retitle(`Run: ${ticketBaseName(rel)}`);
  ctx.log.info(`run ticket ${rel} in ${folder.name} (model ${recorded ? 'scripted: the recorded sample' : settings.editor.model})`);
  try {
    const result = await vscode.window.withProgress(
      {
        location: vscode.ProgressLocation.Notification,
        title: `Ticket Runner: ${ticketBaseName(rel)}${recorded ? ' (recorded answers)' : ''}`,
        cancellable: true,
      },
      async (progress, token) => {
        const { startRun } = await core();
        const report = stageReporter(ctx.runs, progress);
        const { budget, recovery } = settings.run;
        return ctx.runs.drive(
          folder,
          rel,
          (deps, signal) => startRun(deps, { ticketPath: rel, budget, recovery, signal, shown: () => view.shown(FIRST_EVENT_WAIT_MS) }),
          {
            cancel: token,
            settings,
            ...(recorded ? { model: 'scripted' as const } : {}),
            onEvent: (e) => {
              report(e);
              if (e.type === 'run.started') view.bind(e.runId);
              if (e.type === 'uncommitted.detected') void showMessage('warning', `Ticket Runner: ${describeUncommitted(e.files)}.`);
            },
          },
        );
      },
    );
    void announceEnd(ctx.runs, result);
    return result;
  } catch (err) {
    showError(ctx.log, `Run of ${rel} did not start`, err);
    return undefined;
  } finally {
    view.release();
  }
}
