import { UserInputError } from '../../errors';
import type { CorrectionRequest, Proposal } from '../../schema/correction';
import type { TestPlan } from '../../schema/testPlan';
import { Ticket } from '../../schema/ticket';
import { parseTicket } from '../../ticket/ticketLoader';
import { readTicketData, ticketFormatOf, writeTicketData } from '../../ticket/ticketFormat';
import type { RunContext } from '../common/context';
import { unifiedDiff } from '../common/diff';
import { keepHeldOut } from '../manifest/heldOut';

/*
 * A correction request once proposed: its id, the preview of what accepting it writes, and the
 * ticket text Accept writes. Ops, the router and the gates all propose one; the loop applies it.
 */

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
    throw new UserInputError(
      `${ticketPath} is no longer valid ${ticketFormatOf(ticketPath) === 'yaml' ? 'YAML' : 'JSON'}; fix it before accepting the correction`,
    );
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
    throw new UserInputError(`${ticketPath} no longer holds a ticket; fix it before accepting the correction`);
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
      throw new UserInputError(
        `this correction request proposes no change (${proposal.why}); reject it, or edit the ticket and run it again`,
      );
    case 'ticketUnclear':
      throw new UserInputError(
        `this correction asks the ticket to be clearer, it changes nothing itself (${proposal.where}: "${proposal.quote}"); edit the ticket and run it again, or reject it`,
      );
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
export function previewProposal(
  ticketText: string | null,
  ticketPath: string,
  proposal: Proposal,
): { path: string; diff: string } | { path: string; problem: string } {
  const sides = proposalTicketSides(ticketText, ticketPath, proposal);
  if ('problem' in sides) return sides;
  return { path: ticketPath, diff: unifiedDiff({ path: ticketPath, before: sides.before, after: sides.after }, 2) };
}

/** Records a correction request with the full preview of what Accept would write. */
export async function emitCorrection(ctx: Pick<RunContext, 'log' | 'deps' | 'ticketPath'>, request: CorrectionRequest): Promise<void> {
  const preview = previewProposal(await ctx.deps.workspace.readFile(ctx.ticketPath), ctx.ticketPath, request.proposal);
  await ctx.log.emit({ type: 'correction.requested', request, preview });
}
