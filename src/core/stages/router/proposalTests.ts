import type { Proposal } from '../../schema/correction';
import type { Manifest } from '../../schema/manifest';
import { Ticket } from '../../schema/ticket';
import type { TestPlan } from '../../schema/testPlan';
import { materialize } from '../materializer';

/** One rendered test file before and after an accepted proposal re-materializes the tests ('' for a side without it). */
export interface RenderedTestSides {
  path: string;
  before: string;
  after: string;
}

/** The test plan a proposal would leave in the ticket, when it changes the plan at all. */
function proposedPlan(proposal: Proposal): TestPlan | undefined {
  if (proposal.kind === 'testPlan') return proposal.testPlan;
  if (proposal.kind === 'ticketEdit') {
    const t = Ticket.safeParse(proposal.ticket);
    return t.success ? t.data.testPlan : undefined;
  }
  return undefined;
}

/**
 * The rendered tests before and after a proposal, by the run's own materializer with the run's
 * framework and module options: the expectations as the code that will run, not as JSON. Only
 * the files whose text changes; none for a proposal that leaves the test plan alone.
 */
export function proposalTestSides(manifest: Manifest, proposal: Proposal): RenderedTestSides[] {
  const plan = proposedPlan(proposal);
  if (!plan) return [];
  const options = { language: manifest.testLanguage, moduleKind: manifest.moduleKind };
  const before = new Map(materialize(manifest.testPlan, manifest.runner.framework, options).map((f) => [f.path, f.content]));
  const after = new Map(materialize(plan, manifest.runner.framework, options).map((f) => [f.path, f.content]));
  const paths = [...new Set([...before.keys(), ...after.keys()])];
  return paths.map((path) => ({ path, before: before.get(path) ?? '', after: after.get(path) ?? '' })).filter((f) => f.before !== f.after);
}

/** Every correction request of a run whose proposal changes the rendered tests, with those files: what the run view shows. */
export function proposalTestsOf(state: {
  manifest?: Manifest;
  corrections: readonly { request: { id: string; proposal: Proposal } }[];
}): { requestId: string; files: RenderedTestSides[] }[] {
  const manifest = state.manifest;
  if (!manifest) return [];
  return state.corrections
    .map((c) => ({ requestId: c.request.id, files: proposalTestSides(manifest, c.request.proposal) }))
    .filter((p) => p.files.length > 0);
}
