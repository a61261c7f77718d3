import { z } from 'zod';
import { TestFile, TestFramework, TestPlan } from './testPlan';
import { AcceptanceCriterion, SymbolRef, TicketOp } from './ticket';

export const ScopedFile = z
  .object({
    path: z.string(),
    exists: z.boolean().describe('false: the Coder may create it'),
  })
  .strict();
export type ScopedFile = z.infer<typeof ScopedFile>;

/** How the workspace's tests are run, detected from its package.json. */
export const TestRunnerSpec = z
  .object({
    framework: TestFramework,
    /** Why this framework was picked, for the report. */
    detectedFrom: z.string(),
  })
  .strict();
export type TestRunnerSpec = z.infer<typeof TestRunnerSpec>;

/** A type signature gathered from the language service for a symbol in scope. */
export const SignatureFact = z
  .object({
    file: z.string(),
    symbol: z.string(),
    /** The type text from the language service; null when the symbol does not resolve. */
    signature: z.string().nullable(),
  })
  .strict();
export type SignatureFact = z.infer<typeof SignatureFact>;

/**
 * The cases the Coder never sees. Each file sits beside the visible file its cases came from
 * (the same imports resolve), and is on disk only while the command that judges with it runs.
 */
export const HeldOut = z
  .object({
    /** false: the ticket turned generalize off, so nothing is held out. */
    generalize: z.boolean(),
    files: z.array(TestFile),
    /** The authored test files held out, as they are in the workspace; absent when there are none. */
    authored: z.array(z.string()).optional(),
  })
  .strict();
export type HeldOut = z.infer<typeof HeldOut>;

/**
 * The manifest: derived from the ticket with no model, byte-identical for the same
 * ticket and workspace. Keys are emitted in a fixed order by `serializeManifest`.
 */
export const Manifest = z
  .object({
    version: z.literal(1),
    ticketId: z.string(),
    ticketPath: z.string(),
    title: z.string(),
    description: z.string(),
    scope: z.object({ write: z.array(ScopedFile), read: z.array(ScopedFile) }).strict(),
    acceptance: z.array(AcceptanceCriterion),
    runner: TestRunnerSpec,
    /** The visible plan: the cases the Coder is shown and every attempt is judged by. */
    testPlan: TestPlan,
    heldOut: HeldOut.default({ generalize: true, files: [] }),
    testFiles: z.array(z.string()).describe('The rendered test files and the visible authored ones: read-only to every model'),
    /** How the tests are rendered: TypeScript or JavaScript, ES modules or CommonJS. */
    testLanguage: z.enum(['ts', 'js']),
    moduleKind: z.enum(['esm', 'cjs']),
    refs: z.array(SymbolRef),
    ops: z.array(TicketOp),
    facts: z.array(SignatureFact).default([]),
  })
  .strict();
export type Manifest = z.infer<typeof Manifest>;
