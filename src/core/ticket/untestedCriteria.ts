import type { AcceptanceCriterion } from '../schema/ticket';
import type { TestPlan } from '../schema/testPlan';

/**
 * The acceptance criteria no test case names. A plan that names no criterion at all is not
 * held to it; one that names some must name them all (the test reviewer gate's machine fact).
 */
export function criteriaWithoutTest(acceptance: readonly Pick<AcceptanceCriterion, 'id'>[], plan: TestPlan): string[] {
  const named = new Set(plan.files.flatMap((f) => f.cases.flatMap((c) => (c.criterion ? [c.criterion] : []))));
  if (named.size === 0) return [];
  return acceptance.map((a) => a.id).filter((id) => !named.has(id));
}
