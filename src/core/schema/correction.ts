import { z } from 'zod';
import { Evidence } from './diagnosis';
import { TestPlan } from './testPlan';
import { RelPath } from './ticket';

/** A deterministic fact, checked by a machine, that contradicts an input of the run. */
export const MachineFact = z
  .object({
    kind: z.enum([
      'testTypeError',
      'testExpectsImpossibleValue',
      /** A held-out case asserts another value than a visible case that passed, for the same expression: the author's error (checks/heldOutFacts.ts). */
      'heldOutContradictsVisible',
      /** No guard confirms with it any more (a frame shows where a failure surfaced, not what must change); kept so older run logs and corpus cases still read. */
      'outsideScopeFrame',
      'outsideScopeDiagnostic',
      'symbolNotInScope',
      'unresolvedTicketSymbol',
      'repeatedApproach',
      /** The code under test changed a rendered test or the ticket while it ran. */
      'oracleTampered',
      'opFailed',
      /** End-of-ticket gates: no test case of the plan names an acceptance criterion. */
      'criterionNotCovered',
      /** End-of-ticket gates: changed lines that no test runs. */
      'changedLinesUncovered',
    ]),
    detail: z.string().min(1).describe('What the check found, in one sentence'),
    file: z.string().optional(),
    line: z.number().int().optional(),
    code: z.string().optional().describe('A diagnostic code such as TS2322'),
  })
  .strict();
export type MachineFact = z.infer<typeof MachineFact>;

export const Proposal = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('scopeAddition'), paths: z.array(RelPath).min(1) }).strict(),
  z.object({ kind: z.literal('testPlan'), testPlan: TestPlan }).strict(),
  z
    .object({
      kind: z.literal('ticketEdit'),
      /** The ticket as it should read after the edit (a whole ticket, validated on acceptance). */
      ticket: z.unknown(),
      summary: z.string().min(1),
    })
    .strict(),
  /**
   * An escalation's proposal when no input can be corrected by machine: the ticket text the
   * attempts could not settle, quoted verbatim, and what the operator should state in it.
   * Nothing is applied: the operator edits the ticket and runs it again.
   */
  z
    .object({
      kind: z.literal('ticketUnclear'),
      /** Where in the ticket the quote is ("acceptance criterion AC1", "description"). */
      where: z.string().min(1),
      quote: z.string().min(1),
      /** What to state there: what the failing test asks and what the attempts kept doing. */
      change: z.string().min(1),
    })
    .strict(),
  z.object({ kind: z.literal('none'), why: z.string().min(1) }).strict(),
]);
export type Proposal = z.infer<typeof Proposal>;

/** A request to the operator: accepted or rejected inline, never applied silently. */
export const CorrectionRequest = z
  .object({
    id: z.string().min(1),
    target: z.enum(['manifest', 'testPlan', 'ticket', 'op', 'code']),
    fact: MachineFact,
    claim: z
      .object({ text: z.string(), evidence: z.array(Evidence) })
      .strict()
      .optional()
      .describe("The Debugger's claim, when there is one"),
    proposal: Proposal,
  })
  .strict();
export type CorrectionRequest = z.infer<typeof CorrectionRequest>;
