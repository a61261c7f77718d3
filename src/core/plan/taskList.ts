/**
 * A task list read from a spec's `tasks.md` (Spec Kit's or Kiro's), before any ticket is drafted
 * from it. Nothing a reader could act on is lost: a task already done is listed in `done`, and a
 * line the parser does not fully understand (an unknown marker, a task with no id, a link to no
 * requirement) is kept as well as it can be and said in `warnings`.
 */
export type TaskListFormat = 'speckit' | 'kiro';

export interface ImportedTask {
  /** The list's own id (T012, 2.1); `line-<n>` for a task that has none. */
  id: string;
  /** 1-based line of the task in the file. */
  line: number;
  /** What the task asks, without its checkbox, id and known markers. */
  text: string;
  /** Its sub-bullets, as written. */
  details: string[];
  /** Where it sits, for the Drafter: the phase, the parent task, the user story. */
  context: string[];
  /** The workspace paths its text and details name: the ticket's scope candidates. */
  paths: string[];
  /** Kiro's `_Requirements: 1.1_` links: requirement 1's criterion 1. */
  requirements: string[];
  /** The ids of the tasks it runs after, by the list's rules (specKitTasks.ts, kiroTasks.ts). */
  after: string[];
}

export interface DoneTask {
  id: string;
  line: number;
  text: string;
}

export interface TaskWarning {
  line: number;
  message: string;
}

export interface TaskList {
  format: TaskListFormat;
  /** The open tasks, in the file's order. */
  tasks: ImportedTask[];
  /** Checked tasks (`- [x]`): already done, left out of the plan. */
  done: DoneTask[];
  warnings: TaskWarning[];
}

/** One checkbox line of a Markdown list: its indentation, the box's mark, what follows the box. */
export interface CheckboxLine {
  line: number;
  indent: number;
  mark: string;
  /** Kiro's `- [ ]*` marks an optional task. */
  optional: boolean;
  rest: string;
}

const CHECKBOX = /^(\s*)[-*+] \[(.)\](\*?)\s+(.*\S)\s*$/;
const BULLET = /^(\s*)[-*+]\s+(.*\S)\s*$/;

export function checkboxLine(text: string, line: number): CheckboxLine | undefined {
  const m = CHECKBOX.exec(text);
  return m ? { line, indent: m[1]!.length, mark: m[2]!, optional: m[3] === '*', rest: m[4]! } : undefined;
}

/** A plain bullet (not a checkbox) indented under a task: one of its details. */
export function detailLine(text: string): { indent: number; text: string } | undefined {
  if (CHECKBOX.test(text)) return undefined;
  const m = BULLET.exec(text);
  return m && m[1]!.length > 0 ? { indent: m[1]!.length, text: m[2]! } : undefined;
}

/** Whether a box's mark says done (`x`, `X`), open (a space), or neither. */
export function markState(mark: string): 'open' | 'done' | 'unknown' {
  if (mark === ' ') return 'open';
  return mark === 'x' || mark === 'X' ? 'done' : 'unknown';
}

/** The bracketed markers right after a task's id (`[P] [US1]`), and the text after them. */
export function leadingMarkers(rest: string): { markers: string[]; text: string } {
  const markers: string[] = [];
  let text = rest;
  for (let m = /^\[([^\]\n]*)\]\s*/.exec(text); m; m = /^\[([^\]\n]*)\]\s*/.exec(text)) {
    markers.push(m[1]!);
    text = text.slice(m[0].length);
  }
  return { markers, text };
}

/** Which of the two formats a `tasks.md` is in, by its first task line with an id; undefined for neither. */
export function taskListFormat(text: string): TaskListFormat | undefined {
  for (const [i, l] of text.split(/\r?\n/).entries()) {
    const box = checkboxLine(l, i + 1);
    if (!box) continue;
    if (/^T\d+\b/.test(box.rest)) return 'speckit';
    if (/^\d+(\.\d+)*\.?\s/.test(box.rest)) return 'kiro';
  }
  return undefined;
}
