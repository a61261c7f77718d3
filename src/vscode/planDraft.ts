import * as path from 'node:path';
import * as vscode from 'vscode';
import { errorMessage } from '../core/errors';
import type { PlanDraft } from '../core/stages/authoring/draftPlan';
import { TICKET_ID } from '../core/ticket/ticketIds';
import { checkPlanIsNew, workspaceTicketIds, writePlanDraft } from '../node/plans/planDraftFiles';
import { systemClock } from '../node/store/systemClock';
import { withCancelSignal } from './cancellation';
import { showMessage } from './messages';
import { Command } from './settings';
import type { ModelReady } from './ticketDraft';
import type { TicketFiles } from './ticketFiles';

const TITLE = 'Draft Plan from Task List';

/** The task list: a picked tasks.md inside the folder, workspace-relative. */
async function pickTasks(folder: vscode.WorkspaceFolder): Promise<string | undefined> {
  const [uri] =
    (await vscode.window.showOpenDialog({
      title: `${TITLE} (1/2): a spec's tasks.md (Spec Kit or Kiro)`,
      defaultUri: folder.uri,
      canSelectMany: false,
      filters: { Markdown: ['md'] },
      openLabel: 'Draft a Plan',
    })) ?? [];
  if (!uri) return undefined;
  const rel = path.relative(folder.uri.fsPath, uri.fsPath).split(path.sep).join('/');
  if (rel.startsWith('..') || path.isAbsolute(rel)) return void showMessage('error', `${TITLE}: pick a task list inside ${folder.name}.`);
  return rel;
}

/** The plan's id, proposed from the tasks' folder's name (specs/002-reading-list). */
async function askPlanId(folder: vscode.WorkspaceFolder, tasks: string): Promise<string | undefined> {
  const proposed = path.posix.basename(path.posix.dirname(tasks));
  return vscode.window.showInputBox({
    title: `${TITLE} (2/2)`,
    prompt: "The plan's id: its file is .tickets/<id>.plan.yaml",
    value: TICKET_ID.test(proposed) ? proposed : '',
    ignoreFocusOut: true,
    validateInput: (v) => {
      if (!TICKET_ID.test(v)) return 'Letters, digits, dot, dash or underscore, starting with a letter or digit';
      try {
        checkPlanIsNew(folder.uri.fsPath, v);
        return undefined;
      } catch (err) {
        return errorMessage(err);
      }
    },
  });
}

/**
 * Draft Plan from Task List: the folder's model drafts a ticket per open task of a spec's
 * tasks.md, with the same code as `ticket-runner plan draft`, then the drafts and the plan are
 * written and the plan opens. Nothing runs. The notification shows each task as it is drafted,
 * and its Cancel stops the draft with nothing written.
 */
export async function draftPlanFromTasks(
  files: TicketFiles,
  modelReady: ModelReady,
  log?: vscode.LogOutputChannel,
): Promise<PlanDraft | undefined> {
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!folder) return void showMessage('error', 'Open a folder first: a plan lives in the .tickets folder of a workspace.');
  if (!(await modelReady(folder))) return undefined;
  const tasksFile = await pickTasks(folder);
  if (!tasksFile) return undefined;
  const planId = await askPlanId(folder, tasksFile);
  if (!planId) return undefined;
  const root = folder.uri.fsPath;
  const read = async (rel: string) => ({
    file: rel,
    text: new TextDecoder().decode(await vscode.workspace.fs.readFile(vscode.Uri.joinPath(folder.uri, rel))),
  });
  const besideRel = path.posix.join(path.posix.dirname(tasksFile), 'requirements.md');
  const requirements = await read(besideRel).catch(() => undefined);
  const draft = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `Ticket Runner: drafting plan ${planId}`, cancellable: true },
    (progress, token) =>
      withCancelSignal(token, async (signal) => {
        const [{ draftPlan }, model, checks, tasks] = await Promise.all([
          import('../core/stages/authoring/draftPlan.js'),
          files.draftModel(folder, `.tickets/${planId}.plan.yaml`),
          files.checksFor(folder),
          read(tasksFile),
        ]);
        return draftPlan(
          { model, clock: systemClock, ...checks },
          { tasks, ...(requirements ? { requirements } : {}), planId, existingTicketIds: workspaceTicketIds(root) },
          signal,
          { onTask: (task, i, total) => progress.report({ message: `${task.id} (${i + 1} of ${total})`, increment: 100 / total }) },
        );
      }),
  );
  const written = writePlanDraft(root, draft);
  for (const note of draft.plan.source?.notes ?? []) log?.info(`plan ${planId}: ${note}`);
  for (const t of draft.tickets) log?.info(`plan ${planId}: ${t.taskId} drafted as ${t.path} (${t.record.summary})`);
  const left = draft.list.tasks.length - draft.plan.tickets.length;
  if (!draft.plan.tickets.length)
    return void showMessage(
      'error',
      `${TITLE}: no task got a valid ticket, so no plan was written. The Ticket Runner output says why for each.`,
    );
  await vscode.window.showTextDocument(vscode.Uri.joinPath(folder.uri, draft.planPath), { preview: false });
  void showMessage(
    left ? 'warning' : 'info',
    `Plan ${planId}: ${draft.plan.tickets.length} ticket(s) drafted${left ? `, ${left} task(s) left out (the plan's source.notes says why)` : ''}; ${written.length} file(s) written. Nothing has run: read the drafts first.`,
  );
  return draft;
}

/** Draft Plan from Task List, as a command: its errors are one line, never a stack. */
export function registerDraftPlanCommand(files: TicketFiles, modelReady: ModelReady, log?: vscode.LogOutputChannel): vscode.Disposable {
  return vscode.commands.registerCommand(Command.draftPlan, async () => {
    try {
      return await draftPlanFromTasks(files, modelReady, log);
    } catch (err) {
      log?.warn(`plan draft: ${errorMessage(err)}`);
      void showMessage('error', `${TITLE}: ${errorMessage(err)}`);
      return undefined;
    }
  });
}
