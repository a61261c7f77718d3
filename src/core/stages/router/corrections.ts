import { UserInputError } from '../../errors';
import type { CorrectionRequest, Proposal } from '../../schema/correction';
import type { Diagnosis } from '../../schema/diagnosis';
import type { CheckOutcome } from '../checks/checksStage';
import type { RunContext } from '../context';
import { validateTestPlan } from '../gates/testPlanCheck';
import type { RouteDecision } from './router';
import { outsideScopeFiles } from './router';
import { unifiedDiff } from '../gates/diff';
import { parseTicket } from '../ticketLoader';
import { keepHeldOut } from '../heldOut';
import type { TestPlan } from '../../schema/testPlan';
import { describeChecks } from '../prompts';
import { readTicketData, ticketFormatOf, writeTicketData } from '../ticketFormat';
import { Ticket } from '../../schema/ticket';

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
 * Builds the structured correction request for a route that needs the operator. The
 * proposal is derived deterministically where it can be (a scope addition from the
 * out-of-scope files), and validated where a model proposed it.
 */
export async function buildCorrection(ctx: RunContext, decision: RouteDecision, diagnosis: Diagnosis | null, outcome: CheckOutcome, id: string): Promise<CorrectionRequest> {
  const claim = diagnosis ? { text: diagnosis.claim, evidence: diagnosis.evidence } : undefined;
  const fact = decision.guard.fact ?? { kind: 'repeatedApproach' as const, detail: decision.guard.detail };
  let proposal: Proposal;
  let target: CorrectionRequest['target'];
  switch (decision.route) {
    case 'manifest': {
      target = 'manifest';
      const paths = outsideScopeFiles({ manifest: ctx.manifest, diagnosis, diagnostics: outcome.evidence.diagnostics, tests: outcome.evidence.tests, refusedFixes: outcome.evidence.refusedFixes, workspaceRoot: ctx.deps.workspaceRoot });
      proposal = paths.length ? { kind: 'scopeAddition', paths } : { kind: 'none', why: 'no out-of-scope file to add was found; edit scope.write by hand' };
      break;
    }
    case 'test': {
      target = 'testPlan';
      // The same deterministic validation as a gate's proposal: schema, parse, type-check.
      const checked = diagnosis?.proposedTestPlan ? await validateTestPlan(ctx.deps, ctx.manifest, diagnosis.proposedTestPlan, ctx.signal) : undefined;
      proposal =
        checked?.ok && checked.plan
          ? { kind: 'testPlan', testPlan: checked.plan }
          : { kind: 'none', why: fact.kind === 'heldOutContradictsVisible' ? heldOutWhy(fact.detail) : `the Debugger proposed no valid corrected test plan${checked ? ` (${checked.problems.slice(0, 3).join('; ')})` : ''}; correct testPlan in the ticket by hand` };
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
      const paths = outsideScopeFiles({ manifest: ctx.manifest, diagnosis, diagnostics: outcome.evidence.diagnostics, tests: outcome.evidence.tests, refusedFixes: outcome.evidence.refusedFixes, workspaceRoot: ctx.deps.workspaceRoot });
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

/** A proposed plan with the ticket's held-out cases put back (`keepHeldOut`); a ticket that no longer parses keeps the proposal as it is. */
function withHeldOutKept(ticketPath: string, ticketText: string, plan: TestPlan): TestPlan {
  try {
    return keepHeldOut(parseTicket(ticketPath, ticketText), plan);
  } catch {
    return plan;
  }
}

/** The ticket text after an accepted proposal: the ticket file is where the correction lives. */
export function applyProposal(ticketText: string, ticketPath: string, proposal: Proposal): string {
  let raw: Record<string, unknown>;
  try {
    raw = readTicketData(ticketPath, ticketText) as Record<string, unknown>;
  } catch {
    throw new UserInputError(`${ticketPath} is no longer valid ${ticketFormatOf(ticketPath) === 'yaml' ? 'YAML' : 'JSON'}; fix it before accepting the correction`);
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw new UserInputError(`${ticketPath} no longer holds a ticket; fix it before accepting the correction`);
  switch (proposal.kind) {
    case 'scopeAddition': {
      const scope = (raw.scope ?? {}) as { write?: string[] };
      scope.write = [...new Set([...(scope.write ?? []), ...proposal.paths])];
      raw.scope = scope;
      break;
    }
    case 'testPlan':
      raw.testPlan = withHeldOutKept(ticketPath, ticketText, proposal.testPlan);
      break;
    case 'ticketEdit':
      raw = proposal.ticket as Record<string, unknown>;
      break;
    case 'none':
      throw new UserInputError(`this correction request proposes no change (${proposal.why}); reject it, or edit the ticket and run it again`);
    case 'ticketUnclear':
      throw new UserInputError(`this correction asks the ticket to be clearer, it changes nothing itself (${proposal.where}: "${proposal.quote}"); edit the ticket and run it again, or reject it`);
  }
  // A YAML ticket is edited in place: what the proposal does not change keeps its text.
  const text = writeTicketData(ticketPath, ticketText, raw);
  parseTicket(ticketPath, text);
  return text;
}

/** The id of the run's next correction request: `<runId>-c<n>`. */
export function nextCorrectionId(ctx: Pick<RunContext, 'log'>): string {
  return `${ctx.log.runId}-c${ctx.log.events.filter((e) => e.type === 'correction.requested').length + 1}`;
}

/**
 * The ticket as its schema reads it (defaults filled in, keys in schema order), two-space JSON:
 * both sides of a preview in this form, so the diff shows what changes in meaning, not layout.
 */
function canonicalTicket(text: string, ticketPath: string): string {
  try {
    const raw = readTicketData(ticketPath, text);
    const parsed = Ticket.safeParse(raw);
    return JSON.stringify(parsed.success ? parsed.data : raw, null, 2) + '\n';
  } catch {
    return text;
  }
}

/** The ticket file before and after accepting, both in the canonical form Accept writes; or why it cannot apply. */
export type TicketSides = { path: string; before: string; after: string } | { path: string; problem: string };

/** Both sides of the ticket file an accepted proposal rewrites: what the preview diffs and the diff editor shows. */
export function proposalTicketSides(ticketText: string | null, ticketPath: string, proposal: Proposal): TicketSides {
  if (proposal.kind === 'none') return { path: ticketPath, problem: proposal.why };
  if (proposal.kind === 'ticketUnclear') return { path: ticketPath, problem: `edit the ticket by hand: ${proposal.change}` };
  if (ticketText === null) return { path: ticketPath, problem: `${ticketPath} no longer exists` };
  try {
    const after = applyProposal(ticketText, ticketPath, proposal);
    // A YAML ticket is edited in place, so its own text is what changes; a JSON one is rewritten whole.
    if (ticketFormatOf(ticketPath) === 'yaml') return { path: ticketPath, before: ticketText, after };
    return { path: ticketPath, before: canonicalTicket(ticketText, ticketPath), after: canonicalTicket(after, ticketPath) };
  } catch (err) {
    return { path: ticketPath, problem: err instanceof Error ? err.message : String(err) };
  }
}

/**
 * What accepting a proposal would write, in full, before anyone accepts it: a unified diff of
 * the ticket file (its test plan, scope or text), both sides in the canonical form Accept
 * writes (a YAML ticket: its own text before and after, since Accept edits it in place). A proposal that cannot apply says why instead.
 */
export function previewProposal(ticketText: string | null, ticketPath: string, proposal: Proposal): { path: string; diff: string } | { path: string; problem: string } {
  const sides = proposalTicketSides(ticketText, ticketPath, proposal);
  if ('problem' in sides) return sides;
  return { path: ticketPath, diff: unifiedDiff({ path: ticketPath, before: sides.before, after: sides.after }, 2) };
}

/** Records a correction request with the full preview of what Accept would write. */
export async function emitCorrection(ctx: Pick<RunContext, 'log' | 'deps' | 'ticketPath'>, request: CorrectionRequest): Promise<void> {
  const preview = previewProposal(await ctx.deps.workspace.readFile(ctx.ticketPath), ctx.ticketPath, request.proposal);
  await ctx.log.emit({ type: 'correction.requested', request, preview });
}
