import type { FileProblem } from '../errors';
import type { Plan } from '../schema/plan';
import { planTicketId } from './planFiles';

/**
 * One cycle of `after`, as the ids around it with the first repeated at the end (A, B, A), or
 * undefined when there is none. Depth first, in the plan's order, so the same plan always names
 * the same cycle. Ids `after` names that are no entry are left to `planProblems`.
 */
export function findCycle(plan: Pick<Plan, 'tickets'>): string[] | undefined {
  const after = new Map(plan.tickets.map((t) => [planTicketId(t), t.after]));
  const done = new Set<string>();
  const path: string[] = [];
  const onPath = new Set<string>();
  const visit = (id: string): string[] | undefined => {
    if (onPath.has(id)) return [...path.slice(path.indexOf(id)), id];
    if (done.has(id) || !after.has(id)) return undefined;
    path.push(id);
    onPath.add(id);
    for (const dep of after.get(id)!) {
      const cycle = visit(dep);
      if (cycle) return cycle;
    }
    path.pop();
    onPath.delete(id);
    done.add(id);
    return undefined;
  };
  for (const id of after.keys()) {
    const cycle = visit(id);
    if (cycle) return cycle;
  }
  return undefined;
}

/**
 * What stops a plan's order from being followed, each with its fix: a ticket listed twice, an
 * `after` naming no ticket of the plan, a ticket after itself, a cycle. Empty when the order holds.
 */
export function planProblems(plan: Pick<Plan, 'tickets'>): FileProblem[] {
  const problems: FileProblem[] = [];
  const first = new Map<string, number>();
  plan.tickets.forEach((t, i) => {
    const id = planTicketId(t);
    const seen = first.get(id.toLowerCase());
    if (seen !== undefined)
      problems.push({
        path: `$.tickets[${i}].ticket`,
        message: `${id} is already the plan's ticket ${seen + 1}: list each ticket once, with every ticket it runs after in that one entry's after`,
      });
    else first.set(id.toLowerCase(), i);
  });
  const ids = plan.tickets.map(planTicketId);
  plan.tickets.forEach((t, i) =>
    t.after.forEach((dep, j) => {
      const where = `$.tickets[${i}].after[${j}]`;
      if (dep === ids[i]) problems.push({ path: where, message: `${dep} is after itself: remove it from its own after` });
      else if (!ids.includes(dep))
        problems.push({
          path: where,
          message: `${dep} is no ticket of this plan (its tickets: ${ids.join(', ')}): add an entry for it or remove it from after`,
        });
    }),
  );
  // A self-reference is said above; a longer cycle only once every id is known.
  if (problems.length === 0) {
    const cycle = findCycle(plan);
    if (cycle)
      problems.push({
        path: `$.tickets[${ids.indexOf(cycle[0]!)}].after`,
        message: `the tickets wait for each other in a cycle (${cycle.join(' after ')}), so none of them can start: remove one of those after entries`,
      });
  }
  return problems;
}
