import type { AcceptanceCriterion } from '../schema/ticket';
import type { TestPlan } from '../schema/testPlan';

/**
 * The acceptance criteria no test case names. A plan that names no criterion at all is not
 * held to it; one that names some must name them all (the test reviewer gate's machine fact).
 * A plan with tests the author wrote is not held to it either: their cases name no criterion a
 * machine can read, so any criterion no rendered case names may be theirs (`criteriaLeftToAuthored`).
 */
export function criteriaWithoutTest(
  acceptance: readonly Pick<AcceptanceCriterion, 'id'>[],
  plan: TestPlan,
  authored = Boolean(plan.authored?.length),
): string[] {
  return authored ? [] : unnamed(acceptance, plan, false);
}

/** The criteria no rendered case names, on a plan with authored tests: which of them those tests check is not checked. */
export function criteriaLeftToAuthored(acceptance: readonly Pick<AcceptanceCriterion, 'id'>[], plan: TestPlan): string[] {
  return plan.authored?.length ? unnamed(acceptance, plan, true) : [];
}

function unnamed(acceptance: readonly Pick<AcceptanceCriterion, 'id'>[], plan: TestPlan, evenIfNoneNamed: boolean): string[] {
  const named = new Set(plan.files.flatMap((f) => f.cases.flatMap((c) => (c.criterion ? [c.criterion] : []))));
  if (named.size === 0 && !evenIfNoneNamed) return [];
  return acceptance.map((a) => a.id).filter((id) => !named.has(id));
}
