import type { Plan, PlanTicket } from '../schema/plan';
import { planTicketId } from './planFiles';
import type { ReadTaskList } from './readTaskList';

/** What became of each task of a list: the ticket drafted for it, or why none was. */
export interface TaskOutcome {
  taskId: string;
  /** The drafted ticket's file, workspace-relative. */
  ticket?: string;
  /** Why no valid ticket was drafted for it. */
  failed?: string;
}

export interface PlanFromTasks {
  id: string;
  title: string;
  /** The task list and the requirements file, workspace-relative, as the plan's source names them. */
  file: string;
  requirementsFile?: string;
  list: ReadTaskList;
  outcomes: readonly TaskOutcome[];
}

/**
 * The plan of the tickets drafted from a task list: the tasks' order (`after`, by the list's
 * rules) turned into the tickets'. A task with no ticket is bridged, not dropped from the order:
 * what waited for it waits for what it waited for. Every task left out (done, not drafted) and
 * every warning of the list is a note of the plan's source, so the plan says what it is not.
 */
export function planFromTasks(input: PlanFromTasks): Plan {
  const taskById = new Map(input.list.tasks.map((t) => [t.id, t]));
  const ticketOf = new Map(input.outcomes.flatMap((o) => (o.ticket ? [[o.taskId, planTicketId({ ticket: o.ticket })] as const] : [])));
  const resolve = (taskId: string, seen: Set<string>): string[] => {
    const ticket = ticketOf.get(taskId);
    if (ticket) return [ticket];
    if (seen.has(taskId)) return [];
    seen.add(taskId);
    return (taskById.get(taskId)?.after ?? []).flatMap((a) => resolve(a, seen));
  };
  const tickets: PlanTicket[] = input.outcomes.flatMap((o) => {
    const task = taskById.get(o.taskId);
    if (!o.ticket || !task) return [];
    return [{ ticket: o.ticket, after: [...new Set(task.after.flatMap((a) => resolve(a, new Set())))], task: o.taskId }];
  });
  const notes = [
    ...input.list.done.map((d) => `${d.id} is checked as done in ${input.file}: left out`),
    ...input.outcomes.flatMap((o) =>
      o.failed
        ? [`${o.taskId}: no valid ticket was drafted (${o.failed}); left out, and what runs after it waits for what it waited for`]
        : [],
    ),
    ...input.list.warnings.map((w) => `${input.file} line ${w.line}: ${w.message}`),
  ];
  return {
    id: input.id,
    title: input.title,
    tickets,
    source: {
      file: input.file,
      format: input.list.format,
      ...(input.requirementsFile ? { requirements: input.requirementsFile } : {}),
      notes,
    },
  };
}
