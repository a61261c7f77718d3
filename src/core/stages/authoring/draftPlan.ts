import { CancelledError, UserInputError, errorMessage } from '../../errors';
import { planFromTasks, type TaskOutcome } from '../../plan/planFromTasks';
import { planText } from '../../plan/planFiles';
import { readTaskList, type ReadTaskList } from '../../plan/readTaskList';
import { taskIssueText } from '../../plan/taskIssue';
import type { ImportedTask } from '../../plan/taskList';
import type { Plan } from '../../schema/plan';
import { nextTicketId } from '../../ticket/ticketIds';
import type { DraftRecord } from './draftRecord';
import { draftTicket, type DraftDeps } from './draftTicket';
import type { TicketFinding } from './validateTicket';

export interface PlanDraftInput {
  /** The task list, workspace-relative, and its text. */
  tasks: { file: string; text: string };
  /** Kiro's requirements.md, when the tasks link to its criteria. */
  requirements?: { file: string; text: string };
  planId: string;
  /** The ids of the workspace's tickets: the drafts take the next free ones. */
  existingTicketIds: readonly string[];
}

/** A ticket drafted for a task: its file's path and text, and what `validate` found in it. */
export interface DraftedTicket {
  taskId: string;
  id: string;
  path: string;
  text: string;
  findings: TicketFinding[];
  record: DraftRecord;
  /** No finding is an error: the ticket is in the plan. */
  ok: boolean;
}

export interface PlanDraft {
  planPath: string;
  plan: Plan;
  planText: string;
  list: ReadTaskList;
  /** Every draft, in the tasks' order; one with errors is kept for the user to fix, out of the plan. */
  tickets: DraftedTicket[];
  /** The tasks the Drafter gave no valid ticket for, with why. */
  failed: { taskId: string; why: string }[];
}

export interface PlanDraftProgress {
  /** Called before each task's draft, for the host's progress. */
  onTask?(task: ImportedTask, index: number, total: number): void;
}

/**
 * Drafts a plan from a spec's task list: one Drafter call per open task (through `draftTicket`,
 * so each is validated and rendered as `draft`'s is, with its rungs), ticket ids after the
 * workspace's, and the plan with the tasks' order. A task whose draft is no valid ticket, or
 * whose ticket `validate` finds an error in, is listed with why and left out of the plan, never
 * dropped silently. Nothing is written and nothing runs: the host writes what is returned.
 */
export async function draftPlan(
  deps: DraftDeps,
  input: PlanDraftInput,
  signal: AbortSignal,
  progress: PlanDraftProgress = {},
): Promise<PlanDraft> {
  const list = readTaskList(input.tasks.file, input.tasks.text, input.requirements);
  if (!list.tasks.length)
    throw new UserInputError(`${input.tasks.file} has no open task: every task is checked as done, so there is nothing to plan`);
  const taken = [...input.existingTicketIds];
  const tickets: DraftedTicket[] = [];
  const failed: PlanDraft['failed'] = [];
  const outcomes: TaskOutcome[] = [];
  for (const [i, task] of list.tasks.entries()) {
    if (signal.aborted) throw new CancelledError('the plan draft was cancelled');
    progress.onTask?.(task, i, list.tasks.length);
    // A task with no draft takes no id: the next task's ticket gets it.
    const id = nextTicketId(taken) ?? `${input.planId}-${tickets.length + 1}`;
    const path = `.tickets/${id}.ticket.yaml`;
    try {
      const issueText = taskIssueText(input.tasks.file, task, list.criteria);
      const draft = await draftTicket(deps, { issueText, ticketPath: path, id }, signal);
      const errors = draft.findings.filter((f) => f.severity === 'error');
      const ok = errors.length === 0;
      tickets.push({ taskId: task.id, id, path, text: draft.text, findings: draft.findings, record: draft.record, ok });
      taken.push(id);
      const why = errors.map((f) => `${f.path} ${f.message}`).join('; ');
      outcomes.push(
        ok
          ? { taskId: task.id, ticket: path }
          : { taskId: task.id, failed: `${path} was drafted with errors: ${why}; fix it, then add it` },
      );
    } catch (err) {
      if (err instanceof CancelledError || signal.aborted) throw err;
      if (!(err instanceof UserInputError)) throw err;
      failed.push({ taskId: task.id, why: errorMessage(err) });
      outcomes.push({ taskId: task.id, failed: errorMessage(err) });
    }
  }
  const plan = planFromTasks({
    id: input.planId,
    title: planTitle(input.tasks.file, input.tasks.text),
    file: input.tasks.file,
    ...(input.requirements ? { requirementsFile: input.requirements.file } : {}),
    list,
    outcomes,
  });
  return { planPath: `.tickets/${input.planId}.plan.yaml`, plan, planText: planText(plan, 'yaml'), list, tickets, failed };
}

/** The task list's first heading, without Spec Kit's "Tasks:"; its file's name when it has none. */
function planTitle(file: string, text: string): string {
  const heading = /^#\s+(.*\S)\s*$/m.exec(text)?.[1]?.replace(/^Tasks:\s*/i, '');
  return heading ? `${heading} (${file})` : `The tasks of ${file}`;
}
