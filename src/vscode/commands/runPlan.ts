import { existsSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { errorMessage } from '../../core/errors';
import type { PlanProgress } from '../../core/plan/planProgress';
import { planVerdictWords } from '../../core/plan/planReport';
import { runPlan as runPlanTickets, type PlanRunPorts } from '../../core/plan/planRunner';
import { isPlanFileName } from '../../core/plan/planFiles';
import { planWaves } from '../../core/plan/planOrder';
import type { RunState } from '../../core/run/reducer';
import type { PipelineDeps } from '../../core/stages/common/context';
import { scriptPathFor } from '../../node/models/scripted/loadScript';
import { loadPlan, type LoadedPlan } from '../../node/plans/loadPlan';
import { keepOnBranch, openPlanBranch, type PlanBranch } from '../../node/plans/planBranch';
import { sha256 } from '../../node/store/fileRunStore';
import { ownerProbe } from '../../node/store/workspaceLock';
import { FsWorkspace } from '../../node/workspace/fsWorkspace';
import { folderRunSettings } from '../folderSettings';
import { showMessage } from '../messages';
import type { PlanRow, PlansTreeProvider } from '../plansTree';
import type { EditorRunSettings } from '../runSettings';
import { Command } from '../settings';
import { scopeSaved } from './beforeRun';
import type { CommandContext } from './commandContext';
import { showError } from './commandError';
import { core } from './lazyCore';
import { stageReporter } from './runProgress';
import { relTo } from './ticketPick';
import { requireTrust } from './workspaceTrust';

/** What Run Plan was given: a plan file (the explorer, the editor's title), a row of the plans view, or nothing (the palette). */
type PlanArg = vscode.Uri | PlanRow | undefined;

/** A plan file of a workspace folder, from its root. */
interface PlanTarget {
  folder: vscode.WorkspaceFolder;
  file: string;
}

/** Run Plan and Resume Plan: a plan's tickets one after another, each run as Run Ticket runs one. */
export function registerPlanCommands(ctx: CommandContext, plans: PlansTreeProvider): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand(Command.runPlan, (arg?: PlanArg) => runPlan(ctx, plans, arg, false)),
    vscode.commands.registerCommand(Command.resumePlan, (arg?: PlanArg) => runPlan(ctx, plans, arg, true)),
  ];
}

/** The plan given, else the one in the active editor, else the user's pick of the workspace's plans. */
async function givenPlan(plans: PlansTreeProvider, arg: PlanArg): Promise<PlanTarget | undefined> {
  if (arg && !(arg instanceof vscode.Uri) && 'node' in arg) return { folder: arg.folder, file: arg.node.planFile };
  const active = vscode.window.activeTextEditor?.document.uri;
  const uri = arg instanceof vscode.Uri ? arg : active && isPlanFileName(active.path) ? active : undefined;
  if (uri) {
    const folder = vscode.workspace.getWorkspaceFolder(uri);
    if (!folder) return void showMessage('error', `${uri.fsPath} is not in a workspace folder.`);
    return { folder, file: relTo(folder, uri) };
  }
  const rows = plans.getChildren();
  if (!rows.length) {
    void showMessage(
      'error',
      'Ticket Runner: this workspace has no plan. A plan is a file .tickets/<ID>.plan.yaml that lists tickets and whom each runs after; Draft Plan from Task List writes one.',
    );
    return undefined;
  }
  const picked = await vscode.window.showQuickPick(
    rows.map((row) => ({ label: row.node.label, description: row.node.description, detail: row.node.planFile, row })),
    { placeHolder: 'Run which plan?', matchOnDetail: true },
  );
  return picked && { folder: picked.row.folder, file: picked.row.node.planFile };
}

/**
 * Run Plan (`resume`: Resume Plan). Everything that can stop it is asked or said before its first
 * ticket: the model, a plan or ticket that does not read, a ticket the recorded sample cannot
 * replay, the scopes' unsaved files, another plan running in the folder.
 */
async function runPlan(ctx: CommandContext, plans: PlansTreeProvider, arg: PlanArg, resume: boolean): Promise<PlanProgress | undefined> {
  if (!requireTrust()) return undefined;
  const target = await givenPlan(plans, arg);
  if (!target) return undefined;
  const { folder, file } = target;
  const didNot = `The plan ${file} did not ${resume ? 'resume' : 'start'}`;
  const refuse = (why: string) => void showMessage('error', `Ticket Runner: ${didNot}: ${why}.`);
  // Asked before any question, as Run Ticket does; holdForPlan below settles it.
  const busy = ctx.runs.planBusy(folder);
  if (busy) return refuse(busy);
  const way = await ctx.models.ensure(folder, 'run');
  if (!way) return undefined;
  const recorded = way === 'sample';
  let loaded: LoadedPlan;
  try {
    loaded = loadPlan(folder.uri.fsPath, file);
  } catch (err) {
    return void showError(ctx.log, didNot, err);
  }
  const tickets = [...loaded.tickets.values()];
  const unrecorded = tickets.filter((t) => recorded && !existsSync(path.join(folder.uri.fsPath, scriptPathFor(t.file))));
  if (unrecorded.length)
    return refuse(
      `the recorded sample replays only tickets with recorded answers, and ${unrecorded.map((t) => t.file).join(', ')} has none; Choose How Tickets Run offers a model that can run it`,
    );
  for (const t of tickets) if (!(await scopeSaved({ folder, rel: t.file }))) return undefined;
  let hold: vscode.Disposable;
  try {
    hold = ctx.runs.holdForPlan(folder, loaded.plan.id);
  } catch (err) {
    return refuse(errorMessage(err));
  }
  const settings = folderRunSettings(folder);
  ctx.log.info(
    `plan ${file} in ${folder.name}: ${resume ? 'resume' : 'run'} (model ${recorded ? 'scripted: the recorded sample' : settings.editor.model})`,
  );
  try {
    const { progress, cancelled } = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `Ticket Runner: ${loaded.plan.id}`, cancellable: true },
      async (notice, token) => {
        const controller = new AbortController();
        const cancel = token.onCancellationRequested(() => controller.abort());
        try {
          const ports = planPorts(ctx, folder, loaded, { settings, recorded, notice, token });
          const end = await runPlanTickets(ports, { plan: loaded.plan, file: loaded.file, resume, signal: controller.signal });
          return { progress: end, cancelled: token.isCancellationRequested };
        } finally {
          cancel.dispose();
        }
      },
    );
    void announcePlanEnd(progress, cancelled);
    return progress;
  } catch (err) {
    showError(ctx.log, `The plan ${file} stopped`, err);
    return undefined;
  } finally {
    hold.dispose();
  }
}

interface PlanRunContext {
  settings: EditorRunSettings;
  recorded: boolean;
  notice: vscode.Progress<{ message?: string }>;
  token: vscode.CancellationToken;
}

/**
 * The plan runner's ports in the editor: each ticket is driven by the run service as Run Ticket
 * drives one (the same model way, the same settings, in the runs view), with no run view forced
 * open, since a plan runs while the user works; each passed ticket is committed on the plan's
 * branch unless the `plan.commit` setting is off.
 */
function planPorts(ctx: CommandContext, folder: vscode.WorkspaceFolder, loaded: LoadedPlan, o: PlanRunContext): PlanRunPorts {
  const planId = loaded.plan.id;
  const say = (line: string) => ctx.log.info(`plan ${planId}: ${line}`);
  let branch: PlanBranch | null | undefined;
  /** One ticket's run, its step named in the plan's notification after the ticket ("TAGS-2, 3 of 3: running the tests"). */
  const drive = <T>(
    ticketPath: string,
    label: string,
    body: (deps: PipelineDeps, signal: AbortSignal) => Promise<T>,
    continuesRun?: string,
  ) =>
    ctx.runs.drive(folder, ticketPath, body, {
      cancel: o.token,
      settings: o.settings,
      plan: planId,
      ...(continuesRun ? { continuesRun } : {}),
      ...(o.recorded ? { model: 'scripted' as const } : {}),
      onEvent: stageReporter(ctx.runs, { report: ({ message }) => o.notice.report({ message: `${label}: ${message}` }) }),
    });
  const order = planWaves(loaded.plan, loaded.file).flat();
  const position = (id: string) => `${id}, ${order.indexOf(id) + 1} of ${order.length}`;
  const stateOf = (runId: string): RunState => ctx.runs.get(runId)!.state;
  return {
    runs: () =>
      Promise.resolve(
        ctx.runs
          .list()
          .filter((r) => r.folder.uri.toString() === folder.uri.toString())
          .map((r) => r.state),
      ),
    alive: ownerProbe(folder.uri.fsPath),
    newRound: () => new Date().toISOString(),
    runTicket: async (t, link) => {
      const ticketPath = loaded.tickets.get(t.id)!.file;
      o.notice.report({ message: position(t.id) });
      const { startRun } = await core();
      const { budget, recovery } = o.settings.run;
      const result = await drive(ticketPath, position(t.id), (deps, signal) => {
        // Opened once the plan is known to run, under the first ticket's lock, as the CLI does.
        branch ??= o.settings.editor.planCommit ? openPlanBranch(folder.uri.fsPath, planId, say) : null;
        return startRun(deps, { ticketPath, budget, recovery, signal, plan: link });
      });
      return result.state;
    },
    resumeTicket: async (runId) => {
      const { resumeRun } = await core();
      const id = stateOf(runId).ticketId;
      const result = await drive(
        stateOf(runId).ticketPath,
        position(id),
        (deps, signal) =>
          resumeRun(deps, runId, { reason: 'interrupted: resumed with its plan', signal, recovery: o.settings.run.recovery }),
        runId,
      );
      return result.state;
    },
    rollBack: async (runId) => {
      const { rollbackRun } = await core();
      const state = stateOf(runId);
      await ctx.runs.drive(folder, state.ticketPath, (deps) => rollbackRun(deps, runId), {
        noModel: true,
        settings: o.settings,
        plan: planId,
      });
      say(`${state.ticketId}'s last run is rolled back: it runs again from the code before it`);
    },
    keep: async (t, run) => {
      if (!branch) return undefined;
      const { planRollback } = await core();
      const io = { store: ctx.runs.store(folder), workspace: new FsWorkspace(folder.uri.fsPath), hash: sha256 };
      const files = (await planRollback(io, run.runId)).steps.map((s) => s.path);
      return keepOnBranch(branch, files, {
        planId,
        ticketId: t.id,
        title: loaded.tickets.get(t.id)!.title,
        runId: run.runId,
        uncommitted: run.uncommitted,
      });
    },
    say,
  };
}

/** How the plan ended, in the plan's words; a ticket to act on opens in the run view, where its correction is decided. */
async function announcePlanEnd(p: PlanProgress, cancelled: boolean): Promise<void> {
  const words = `Ticket Runner: ${planVerdictWords(p)}${cancelled ? ' (you cancelled it)' : ''}.`;
  if (p.verdict === 'passed') return void showMessage('info', words);
  const act = p.tickets.find((t) => t.state === 'waiting' && t.run) ?? p.tickets.find((t) => t.run && t.state !== 'passed');
  const open = act && `Open ${act.id}'s Run`;
  const choice = await showMessage(cancelled ? 'info' : 'warning', words, ...(open ? [open] : []));
  if (open && choice === open) await vscode.commands.executeCommand(Command.openRun, act.run!.runId);
}
