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

/**
 * How long a new run waits, once started, for its view to show its first event before its
 * heavy work begins (see RunOptions.shown): a page loads in under a second when the run does
 * not compete with it for the CPU.
 */
const FIRST_EVENT_WAIT_MS = 3000;

/** The ticket Run Ticket was given, or the open ticket its list offers first. */
type GivenTicket = { picked: PickedTicket } | { first?: string };

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
  // The model first: without one the run would stop before its first step, after the ticket was picked.
  const recorded = o.recorded === true ? true : await replaysSample(ctx, target);
  if (recorded === undefined) return undefined;
  const given = await givenTicket(target, recorded);
  if (!given) return undefined;
  // The run's view opens as the command starts, so its page loads while the ticket is picked and
  // the run starts (a webview takes a second or more to load); the run's first event binds it.
  const view = ctx.panels.prepare('picked' in given ? `Run: ${ticketBaseName(given.picked.rel)}` : 'Run Ticket');
  let ready: ReadyTicket | undefined;
  try {
    ready = await readyToRun(ctx, given, recorded);
  } finally {
    if (!ready) view.release();
  }
  return ready && runInView(ctx, ready, view, recorded);
}

/** Whether the run replays the recorded sample, the user's way in when the model setting can run none; undefined when they backed out. */
async function replaysSample(ctx: CommandContext, target: vscode.Uri | undefined): Promise<boolean | undefined> {
  const editorUri = target instanceof vscode.Uri ? target : vscode.window.activeTextEditor?.document.uri;
  const way = await ctx.models.ensure(
    (editorUri && vscode.workspace.getWorkspaceFolder(editorUri)) ?? vscode.workspace.workspaceFolders?.[0],
    'run',
  );
  return way && way === 'sample';
}

/** The ticket given, or else the one in the active editor; undefined (said) when it lies in no workspace folder. */
async function givenTicket(target: vscode.Uri | undefined, recorded: boolean): Promise<GivenTicket | undefined> {
  let first: string | undefined;
  if (!(target instanceof vscode.Uri)) ({ target, first } = await ticketInEditor());
  // The sample replays only a ticket with recorded answers: another one given is offered among them instead.
  if (recorded && target && !(await scriptPaths()).has(scriptPathFor(target.path))) target = undefined;
  if (!target) return { first };
  const folder = vscode.workspace.getWorkspaceFolder(target);
  if (!folder) return void showMessage('error', `${target.fsPath} is not in a workspace folder.`);
  return { picked: { folder, rel: relTo(folder, target) } };
}

/** The ticket picked (unless given), then each question before a run, in order; undefined when one stops it. */
async function readyToRun(ctx: CommandContext, given: GivenTicket, recorded: boolean): Promise<ReadyTicket | undefined> {
  const picked = 'picked' in given ? given.picked : await pickTicket(given.first, recorded);
  if (!picked || !(await ticketParses(ctx.log, picked)) || !(await scopeSaved(picked))) return undefined;
  const settings = folderRunSettings(picked.folder);
  return (await settleLeftovers(ctx, picked.folder, settings)) ? { ...picked, settings } : undefined;
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
