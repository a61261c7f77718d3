import { PlanValidationError } from '../errors';
import type { Plan } from '../schema/plan';
import { planTicketId } from './planFiles';
import { planProblems } from './planGraph';

/**
 * The order a plan's tickets can run in, as waves of ids: the first wave waits for nothing, and
 * each later wave holds every ticket whose `after` the waves before it have all met. The tickets
 * of one wave wait for none of each other, so a runner may run them side by side; within a wave
 * they keep the plan's order. A plan whose order cannot be followed (a cycle, an unknown or
 * repeated ticket) is refused with the same problems `parsePlan` gives, naming its `file`.
 */
export function planWaves(plan: Pick<Plan, 'tickets'>, file: string): string[][] {
  const problems = planProblems(plan);
  if (problems.length) throw new PlanValidationError(file, problems);
  const pending = plan.tickets.map((t) => ({ id: planTicketId(t), after: t.after }));
  const met = new Set<string>();
  const waves: string[][] = [];
  while (pending.length) {
    const wave = pending.filter((t) => t.after.every((a) => met.has(a))).map((t) => t.id);
    // planProblems found no cycle, so every round frees at least one ticket.
    for (const id of wave) met.add(id);
    waves.push(wave);
    for (let i = pending.length - 1; i >= 0; i--) if (met.has(pending[i]!.id)) pending.splice(i, 1);
  }
  return waves;
}
