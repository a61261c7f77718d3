import {
  checkboxLine,
  detailLine,
  leadingMarkers,
  markState,
  type CheckboxLine,
  type ImportedTask,
  type TaskList,
  type TaskWarning,
} from './taskList';
import { pathsIn } from './taskPaths';

/** Kiro's link from a task to the criteria it meets: `_Requirements: 1.1, 2.3_`. */
const REQUIREMENTS = /^_?Requirements?:\s*([^_]*)_?$/i;

/** A task as the two formats' parsers share it, before its order is known. */
export interface ReadTask extends ImportedTask {
  box: CheckboxLine;
  /** Its markers after the id, as written (`P`, `US1`). */
  markers: string[];
  /** Its place in an outline: `2.1` is under `2`. */
  depth: number;
  /** The last heading above it that `section` matched (Spec Kit's phase), or ''. */
  section: string;
}

/**
 * The checkbox tasks of a task list, each with its details and links, in the file's order, and
 * the last heading above each that `section` matches (its first group). `idOf` reads the format's
 * id off a task's text (undefined when it has none: the task is kept as `line-<n>` and warned of).
 */
export function readTasks(
  text: string,
  idOf: (rest: string) => { id: string; rest: string } | undefined,
  section?: RegExp,
): { tasks: ReadTask[]; done: TaskList['done']; warnings: TaskWarning[] } {
  const tasks: ReadTask[] = [];
  const done: TaskList['done'] = [];
  const warnings: TaskWarning[] = [];
  let current: ReadTask | undefined;
  let heading = '';
  for (const [i, raw] of text.split(/\r?\n/).entries()) {
    const n = i + 1;
    const box = checkboxLine(raw, n);
    if (box) {
      const found = idOf(box.rest);
      const id = found?.id ?? `line-${n}`;
      if (!found) warnings.push({ line: n, message: `a task with no id: kept as ${id}` });
      const { markers, text: taskText } = leadingMarkers(found?.rest ?? box.rest);
      const state = markState(box.mark);
      if (state === 'unknown') warnings.push({ line: n, message: `${id}: unknown checkbox mark [${box.mark}]; read as not done` });
      if (state === 'done') {
        done.push({ id, line: n, text: taskText });
        current = undefined;
        continue;
      }
      current = {
        id,
        line: n,
        text: taskText,
        details: [],
        context: [],
        paths: [],
        requirements: [],
        after: [],
        box,
        markers,
        depth: id.split('.').length,
        section: heading,
      };
      tasks.push(current);
      continue;
    }
    const detail = current && detailLine(raw);
    if (current && detail && detail.indent > current.box.indent) {
      const link = REQUIREMENTS.exec(detail.text);
      if (link) current.requirements.push(...link[1]!.split(/[,\s]+/).filter(Boolean));
      else current.details.push(detail.text);
      continue;
    }
    const bare = REQUIREMENTS.exec(raw.trim());
    if (current && bare && /^\s/.test(raw)) {
      current.requirements.push(...bare[1]!.split(/[,\s]+/).filter(Boolean));
      continue;
    }
    if (raw.trim() && !/^\s/.test(raw)) current = undefined;
    const m = section?.exec(raw);
    if (m) heading = m[1]!;
  }
  for (const t of tasks) t.paths = pathsIn([t.text, ...t.details].join('\n'));
  return { tasks, done, warnings };
}

/** The task as the list hands it on, without what only the parsers use. */
export function imported({ box: _box, markers: _markers, depth: _depth, section: _section, ...task }: ReadTask): ImportedTask {
  return task;
}

/** Puts a task's markers that `known` does not take back in front of its text, each warned of: kept, never lost. */
export function keepUnknownMarkers(task: ReadTask, known: (marker: string) => boolean, warnings: TaskWarning[]): void {
  const unknown = task.markers.filter((m) => !known(m));
  for (const m of unknown) warnings.push({ line: task.line, message: `${task.id}: unknown marker [${m}], kept in the task's text` });
  if (unknown.length) task.text = `${unknown.map((m) => `[${m}]`).join(' ')} ${task.text}`;
}
