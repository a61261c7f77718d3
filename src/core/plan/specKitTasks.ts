import type { TaskList, TaskWarning } from './taskList';
import { imported, keepUnknownMarkers, readTasks, type ReadTask } from './taskLines';

const PHASE = /^##\s+(Phase\b.*\S)\s*$/i;
const STORY = /^US\d+$/;

/**
 * Reads Spec Kit's `tasks.md`: `## Phase N: ...` headings, and tasks `- [ ] T012 [P] [US1] text`.
 *
 * The order: phases run one after another, so a task waits for the end of the phase before it
 * (the tasks of that phase nothing later in it waits for). Within a phase, a task without `[P]`
 * runs after everything before it in the phase; a `[P]` task (different files, no dependency on
 * its phase's other tasks) waits only for the end of the phase before. A checked task is done:
 * nothing waits for it. A marker other than `[P]` and `[USn]` is kept in the task's text and
 * warned of.
 */
export function parseSpecKitTasks(text: string): TaskList {
  const read = readTasks(
    text,
    (rest) => {
      const m = /^(T\d+)\b\s*(.*)$/.exec(rest);
      return m ? { id: m[1]!, rest: m[2]! } : undefined;
    },
    PHASE,
  );
  const warnings: TaskWarning[] = [...read.warnings];
  const phases = new Map<string, ReadTask[]>();
  for (const task of read.tasks) phases.set(task.section, [...(phases.get(task.section) ?? []), task]);
  let phaseStart: string[] = [];
  for (const [name, tasks] of phases) {
    let frontier = [...phaseStart];
    for (const task of tasks) {
      keepUnknownMarkers(task, (m) => m === 'P' || STORY.test(m), warnings);
      if (name) task.context.push(name);
      const story = task.markers.find((m) => STORY.test(m));
      if (story) task.context.push(`user story ${story}`);
      if (task.markers.includes('P')) {
        task.after = [...phaseStart];
        frontier = [...frontier.filter((id) => !phaseStart.includes(id)), task.id];
      } else {
        task.after = frontier;
        frontier = [task.id];
      }
    }
    phaseStart = frontier;
  }
  warnings.sort((a, b) => a.line - b.line);
  return { format: 'speckit', tasks: read.tasks.map(imported), done: read.done, warnings };
}
