import type { RequirementCriterion } from './kiroRequirements';
import type { ImportedTask } from './taskList';

/**
 * What the Drafter is given for one task, as `draft` is given an issue: the task's words, where
 * it sits, the paths it names (the scope's candidates) and the criteria it links to (the
 * acceptance criteria's source).
 */
export function taskIssueText(file: string, task: ImportedTask, criteria: ReadonlyMap<string, RequirementCriterion>): string {
  const linked = task.requirements.flatMap((id) => {
    const c = criteria.get(id);
    return c ? [`- ${id} (${c.requirement}): ${c.text}`] : [];
  });
  return [
    `Task ${task.id} of ${file}${task.context.length ? ` (${task.context.join('; ')})` : ''}:`,
    task.text,
    ...(task.details.length ? ['', 'Details:', ...task.details.map((d) => `- ${d}`)] : []),
    ...(task.paths.length ? ['', 'Files the task names (the scope to start from):', ...task.paths.map((p) => `- ${p}`)] : []),
    ...(linked.length ? ['', 'Acceptance criteria the task must meet, from the requirements:', ...linked] : []),
  ].join('\n');
}
