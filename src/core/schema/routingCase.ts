import { z } from 'zod';
import { AppliedFix, CodeDiagnostic, TestRunResult } from './checks';
import { MachineFact } from './correction';
import { FailureKind } from './diagnosis';
import { Manifest } from './manifest';

/**
 * One case of the routing corpus (test/routing-corpus/): a failed attempt frozen as the
 * product saw it, what the Debugger read and what the guards read, with the owner of the fix
 * a person decided (gold). The benchmark replays it without the workspace it came from.
 */
const SourceFile = z.object({ path: z.string(), content: z.string() }).strict();

export const DebuggerInputsData = z
  .object({
    manifest: z.string(),
    testFiles: z.array(SourceFile),
    testOutput: z.string(),
    diagnostics: z.string(),
    preExisting: z.string(),
    pristine: z.array(SourceFile),
    implementation: z.array(SourceFile),
    history: z.array(z.object({ attempt: z.number().int(), files: z.array(SourceFile), failure: z.string() }).strict()),
  })
  .strict();

export const RouterFactsData = z
  .object({
    manifest: Manifest,
    diagnostics: z.array(CodeDiagnostic),
    tests: TestRunResult.optional(),
    refusedFixes: z.array(AppliedFix).optional(),
    impossibleExpectations: z
      .array(
        z
          .object({
            file: z.string(),
            caseName: z.string(),
            actual: z.string(),
            expected: z.string(),
            code: z.string(),
            message: z.string(),
          })
          .strict(),
      )
      .optional(),
    workspaceRoot: z.string(),
    testErrorsBeforeCoder: z.array(CodeDiagnostic).optional(),
    heldOutFact: MachineFact.optional(),
    tampered: z.array(z.object({ path: z.string(), expected: z.string(), actual: z.string().nullable() }).strict()).optional(),
    repeat: z
      .object({ current: z.array(z.string()), previous: z.array(z.string()) })
      .strict()
      .optional(),
  })
  .strict();

export const RoutingCase = z
  .object({
    id: z.string().regex(/^[A-Za-z0-9._-]+$/),
    /** Where the case comes from: a fixture's real attempt, or the hard case a variant stands for. */
    origin: z.string().min(1),
    /** Why the gold route is the right owner, for the person who reads a miss. */
    why: z.string().min(1),
    gold: z.object({ route: FailureKind, fact: MachineFact.shape.kind.optional() }).strict(),
    inputs: DebuggerInputsData,
    facts: RouterFactsData,
    /** The scripted Debugger's answers for this case, in the scripted model's format (validated there). */
    answers: z.array(z.unknown()).min(1),
  })
  .strict();
export type RoutingCase = z.infer<typeof RoutingCase>;
