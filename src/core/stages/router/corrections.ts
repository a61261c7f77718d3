import type { TestRunResult } from '../../schema/checks';
import type { CorrectionRequest, MachineFact, Proposal } from '../../schema/correction';
import { authoredTests } from '../../schema/testPlan';
import { reportedFile } from '../checks/plannedCases';
import type { Diagnosis } from '../../schema/diagnosis';
import type { CheckOutcome } from '../checks/checksStage';
import type { RunContext } from '../common/context';
import { validateTestPlan } from '../gates/testPlanCheck';
import type { RouteDecision } from '../common/routing';
import { outsideScopeFiles } from './router';
import { parseTicket } from '../../ticket/ticketLoader';
import { describeChecks } from '../common/evidence';
import { readTicketData } from '../../ticket/ticketFormat';

/** Applies a Debugger's exact text replacements to the ticket; null when the result is not a valid ticket. */
function editedTicket(ticketText: string, ticketPath: string, edit: NonNullable<Diagnosis['proposedTicketEdit']>): unknown {
  let text = ticketText;
  for (const r of edit.replacements) {
    if (!text.includes(r.find)) return null;
    text = text.split(r.find).join(r.replace);
  }
  try {
    parseTicket(ticketPath, text);
    return readTicketData(ticketPath, text);
  } catch {
    return null;
  }
}

/** Every approach the run's diagnoses flagged, the current one's included, once each. */
function flaggedSoFar(ctx: RunContext, diagnosis: Diagnosis | null): string[] {
  const all = ctx.log.events.flatMap((e) => (e.type === 'debugger.diagnosed' && e.diagnosis ? e.diagnosis.avoid : []));
  return [...new Set([...all, ...(diagnosis?.avoid ?? [])].map((a) => a.replace(/\s+/g, ' ').trim()).filter(Boolean))];
}

/**
 * "Ticket unclear" for an escalation with no input to correct by machine: the acceptance
 * criterion the failing test names (its `[AC…]` tag), or else the description, quoted as the
 * ticket states it, and what the failing check asks that the attempts did not give.
 */
export function unclearTicket(manifest: RunContext['manifest'], outcome: CheckOutcome, flagged: string[]): Proposal {
  const failing = outcome.evidence.tests?.cases.find((c) => c.status === 'failed');
  const criterion = failing && manifest.acceptance.find((a) => failing.name.includes(`[${a.id}]`));
  const where = criterion ? `acceptance criterion ${criterion.id}` : 'description';
  const quote = criterion?.text ?? manifest.description;
  const asked = failing
    ? `the test "${failing.name}" still fails${failing.expected !== undefined ? ` (expected ${failing.expected}, received ${failing.actual ?? 'something else'})` : failing.message ? ` (${failing.message.split('\n')[0]})` : ''}`
    : `the checks still fail (${describeChecks(outcome.evidence).split('\n')[0] || 'see the attempt'})`;
  const tried = flagged.length ? `, though the Debugger flagged ${flagged.map((f) => `"${f}"`).join(', ')}` : '';
  return {
    kind: 'ticketUnclear',
    where,
    quote,
    change: `Two attempts took the same approach and ${asked}${tried}. State in the ${where} exactly what is required there, or correct the test plan if the test asks for something the ticket does not mean.`,
  };
}

/** What the operator is asked to do about a held-out case that contradicts a visible one: only the author knows which is wrong. */
const heldOutWhy = (detail: string): string =>
  `${detail}. Correct the wrong one in the ticket's testPlan by hand; a held-out case stays held out (keep it the last of its criterion, or give it "holdout": true)`;

/**
 * What the operator is asked to do about a test they wrote that a machine fact shows wrong: a
 * structured test plan cannot say what a file of theirs should hold, so the request names the
 * file, the failing case and the criterion it checks (by its id in the case's name, or the only
 * one), and the fix is theirs to make by hand.
 */
export function authoredTestWhy(manifest: RunContext['manifest'], fact: MachineFact, tests: TestRunResult | undefined): string {
  const failing = tests?.cases.find((c) => c.status === 'failed' && c.file !== undefined && reportedFile(c.file) === fact.file);
  const named = failing && manifest.acceptance.find((a) => new RegExp(`\\b${a.id}\\b`).test(failing.name));
  const criterion = named ?? (manifest.acceptance.length === 1 ? manifest.acceptance[0] : undefined);
  const what = failing ? `its case "${failing.name}"` : 'its cases';
  const checks = criterion ? `, which checks ${criterion.id} ("${criterion.text}")` : ', which names no acceptance criterion';
  return `${fact.file} is a test you wrote, and ${what}${checks} cannot pass as written: ${fact.detail}. No test plan can correct a file of yours: correct the test file by hand (or the criterion, if the test is right), then run the ticket again`;
}

/**
 * Builds the structured correction request for a route that needs the operator. The
 * proposal is derived deterministically where it can be (a scope addition from the
 * out-of-scope files), and validated where a model proposed it.
 */
export async function buildCorrection(
  ctx: RunContext,
  decision: RouteDecision,
  diagnosis: Diagnosis | null,
  outcome: CheckOutcome,
  id: string,
): Promise<CorrectionRequest> {
  const claim = diagnosis ? { text: diagnosis.claim, evidence: diagnosis.evidence } : undefined;
  const fact = decision.guard.fact ?? { kind: 'repeatedApproach' as const, detail: decision.guard.detail };
  let proposal: Proposal;
  let target: CorrectionRequest['target'];
  switch (decision.route) {
    case 'manifest': {
      target = 'manifest';
      const paths = outsideScopeFiles({
        manifest: ctx.manifest,
        diagnosis,
        diagnostics: outcome.evidence.diagnostics,
        tests: outcome.evidence.tests,
        refusedFixes: outcome.evidence.refusedFixes,
        workspaceRoot: ctx.deps.workspaceRoot,
      });
      proposal = paths.length
        ? { kind: 'scopeAddition', paths }
        : { kind: 'none', why: 'no out-of-scope file to add was found; edit scope.write by hand' };
      break;
    }
    case 'test': {
      target = 'testPlan';
      if (fact.file !== undefined && authoredTests(ctx.manifest.testPlan).some((a) => a.path === fact.file)) {
        proposal = { kind: 'none', why: authoredTestWhy(ctx.manifest, fact, outcome.evidence.tests) };
        break;
      }
      // The same deterministic validation as a gate's proposal: schema, parse, type-check.
      const checked = diagnosis?.proposedTestPlan
        ? await validateTestPlan(ctx.deps, ctx.manifest, diagnosis.proposedTestPlan, ctx.signal)
        : undefined;
      proposal =
        checked?.ok && checked.plan
          ? { kind: 'testPlan', testPlan: checked.plan }
          : {
              kind: 'none',
              why:
                fact.kind === 'heldOutContradictsVisible'
                  ? heldOutWhy(fact.detail)
                  : `the Debugger proposed no valid corrected test plan${checked ? ` (${checked.problems.slice(0, 3).join('; ')})` : ''}; correct testPlan in the ticket by hand`,
            };
      break;
    }
    case 'ticket': {
      target = 'ticket';
      const text = (await ctx.deps.workspace.readFile(ctx.ticketPath)) ?? '';
      const edited = diagnosis?.proposedTicketEdit ? editedTicket(text, ctx.ticketPath, diagnosis.proposedTicketEdit) : null;
      proposal =
        edited !== null && diagnosis?.proposedTicketEdit
          ? { kind: 'ticketEdit', ticket: edited, summary: diagnosis.proposedTicketEdit.summary }
          : { kind: 'none', why: 'the Debugger proposed no ticket edit that validates; correct the ticket by hand' };
      break;
    }
    default: {
      // The repeat guard escalated: attempts kept to one approach, so an input is likely wrong.
      const paths = outsideScopeFiles({
        manifest: ctx.manifest,
        diagnosis,
        diagnostics: outcome.evidence.diagnostics,
        tests: outcome.evidence.tests,
        refusedFixes: outcome.evidence.refusedFixes,
        workspaceRoot: ctx.deps.workspaceRoot,
      });
      if (paths.length) {
        target = 'manifest';
        proposal = { kind: 'scopeAddition', paths };
      } else {
        target = 'ticket';
        proposal = unclearTicket(ctx.manifest, outcome, flaggedSoFar(ctx, diagnosis));
      }
    }
  }
  return { id, target, fact, claim, proposal };
}
