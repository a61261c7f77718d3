import type { TaskList, TaskWarning } from './taskList';
import { imported, keepUnknownMarkers, readTasks, type ReadTask } from './taskLines';

/**
 * Reads Kiro's `tasks.md`: numbered tasks `- [ ] 2. text`, sub-tasks `- [ ] 2.1 text` (nested or
 * not: the number says whose), sub-bullets as details, `_Requirements: 1.1, 2.3_` links.
 *
 * A task with sub-tasks is their heading, not a ticket: its text, details and links go to each of
 * them. Kiro's tasks run in order, so each ticket runs after the task before it (a sub-task after
 * its previous sibling, the first sub-task after the task before its parent); a checked task is
 * done and nothing waits for it. `- [ ]*` (optional) is kept and said in the task's context; a
 * bracketed marker after the number is kept in the text and warned of.
 */
export function parseKiroTasks(text: string): TaskList {
  const read = readTasks(text, (rest) => {
    const m = /^(\d+(?:\.\d+)*)\.?\s+(.*)$/.exec(rest);
    return m ? { id: m[1]!, rest: m[2]! } : undefined;
  });
  const warnings: TaskWarning[] = [...read.warnings];
  const ids = [...read.tasks.map((t) => t.id), ...read.done.map((t) => t.id)];
  const isGroup = (t: ReadTask) => ids.some((id) => id.startsWith(`${t.id}.`));
  const parentOf = (t: ReadTask): ReadTask | undefined => {
    const id = t.id.slice(0, t.id.lastIndexOf('.'));
    return t.id.includes('.') ? read.tasks.find((p) => p.id === id) : undefined;
  };
  const tickets: ReadTask[] = [];
  for (const task of read.tasks) {
    keepUnknownMarkers(task, () => false, warnings);
    if (task.box.optional) task.context.push('optional in the task list (- [ ]*)');
    if (isGroup(task)) {
      if (!read.tasks.some((t) => t.id.startsWith(`${task.id}.`)))
        warnings.push({ line: task.line, message: `${task.id}: every sub-task is done but the task is not checked; left out of the plan` });
      continue;
    }
    for (let p = parentOf(task); p; p = parentOf(p)) {
      task.context.unshift(`part of ${p.id}. ${p.text}`, ...p.details.map((d) => `${p.id}: ${d}`));
      task.requirements.unshift(...p.requirements.filter((r) => !task.requirements.includes(r)));
    }
    task.after = tickets.length ? [tickets[tickets.length - 1]!.id] : [];
    tickets.push(task);
  }
  warnings.sort((a, b) => a.line - b.line);
  return { format: 'kiro', tasks: tickets.map(imported), done: read.done, warnings };
}
