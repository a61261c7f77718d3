import { z } from 'zod';
import { TestPlan } from './testPlan';

/** Who owns the fix for a failure. The router maps each kind to a destination. */
export const FAILURE_KINDS = ['code', 'manifest', 'test', 'ticket'] as const;
export const FailureKind = z.enum(FAILURE_KINDS);
export type FailureKind = z.infer<typeof FailureKind>;

/** Where a quote was taken from; each quote must be found verbatim in that input. */
export const EvidenceSource = z.enum(['testOutput', 'diagnostics', 'testFile', 'implementation', 'manifest', 'history']);
export type EvidenceSource = z.infer<typeof EvidenceSource>;

export const Evidence = z
  .object({
    source: EvidenceSource,
    file: z.string().optional().describe('The file the quote is from, when it is from a file'),
    quote: z.string().min(1).describe('Text copied verbatim from the input named by source: at least 8 non-space characters'),
  })
  .strict();
export type Evidence = z.infer<typeof Evidence>;

/** The Debugger's answer. Validated by zod, then every quote is checked against its inputs. */
export const Diagnosis = z
  .object({
    kind: FailureKind.describe(
      'code: the implementation is wrong; manifest: the scope is wrong; test: the test expectation is wrong; ticket: the ticket is wrong',
    ),
    claim: z.string().min(1).describe('One specific sentence: what is wrong and why'),
    evidence: z.array(Evidence).min(1),
    brief: z.string().min(1).describe('A corrective brief for whoever owns the fix'),
    avoid: z.array(z.string()).default([]).describe('Approaches that must not be repeated'),
    proposedTestPlan: TestPlan.optional().describe('kind "test" only: the whole corrected test plan'),
    proposedTicketEdit: z
      .object({
        summary: z.string().min(1),
        replacements: z.array(z.object({ find: z.string().min(1), replace: z.string() }).strict()).min(1),
      })
      .strict()
      .optional()
      .describe('kind "ticket" only: exact text replacements in the ticket file'),
  })
  .strict();
export type Diagnosis = z.infer<typeof Diagnosis>;
