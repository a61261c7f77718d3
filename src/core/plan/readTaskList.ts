import { UserInputError } from '../errors';
import { parseKiroRequirements, type RequirementCriterion } from './kiroRequirements';
import { parseKiroTasks } from './kiroTasks';
import { parseSpecKitTasks } from './specKitTasks';
import { taskListFormat, type TaskList } from './taskList';

/** A task list and the criteria its tasks link to. */
export interface ReadTaskList extends TaskList {
  criteria: Map<string, RequirementCriterion>;
}

/**
 * Reads a `tasks.md` in whichever of the two formats it is, and Kiro's `requirements.md` when
 * given: a task's link to a criterion the requirements do not have (or with no requirements to
 * read) is kept and warned of.
 */
export function readTaskList(file: string, text: string, requirements?: { file: string; text: string }): ReadTaskList {
  const format = taskListFormat(text);
  if (!format)
    throw new UserInputError(
      `${file} has no task this can read: a Spec Kit task is "- [ ] T001 text", a Kiro task "- [ ] 1. text"; give the spec's tasks.md`,
    );
  const list = format === 'speckit' ? parseSpecKitTasks(text) : parseKiroTasks(text);
  const criteria = requirements ? parseKiroRequirements(requirements.text) : new Map<string, RequirementCriterion>();
  const warnings = [...list.warnings];
  for (const task of list.tasks) {
    const missing = task.requirements.filter((r) => !criteria.has(r));
    if (missing.length)
      warnings.push({
        line: task.line,
        message: requirements
          ? `${task.id}: links ${missing.join(', ')}, which ${requirements.file} does not have; drafted without ${missing.length > 1 ? 'them' : 'it'}`
          : `${task.id}: links ${missing.join(', ')}; give --requirements requirements.md to draft with the criteria`,
      });
  }
  warnings.sort((a, b) => a.line - b.line);
  return { ...list, warnings, criteria };
}
