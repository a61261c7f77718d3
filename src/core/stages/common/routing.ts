import type { AppliedFix, CodeDiagnostic, TestRunResult } from '../../schema/checks';
import type { MachineFact } from '../../schema/correction';
import type { Diagnosis, FailureKind } from '../../schema/diagnosis';
import type { Route } from '../../schema/events';
import type { Manifest } from '../../schema/manifest';
import type { FailureEvidence } from './evidence';

/*
 * What the router decides from and what it decides: the hub's routing observer (context.ts)
 * sees both, so they sit below the router.
 */

/** One attempt's change: its files' new statements, each file's marked with its path. */
export type ChangeShape = string[];

export interface RouteDecision {
  claimed: FailureKind | null;
  route: Route;
  guard: { verdict: 'confirmed' | 'abstained' | 'overridden' | 'notNeeded'; fact?: MachineFact; detail: string };
}

export interface RouterInputs {
  manifest: Manifest;
  diagnosis: Diagnosis | null;
  diagnostics: CodeDiagnostic[];
  tests?: TestRunResult;
  /** Fixes the language service offered for errors in scope that would change files outside it. */
  refusedFixes?: AppliedFix[];
  /** Expectations the type probe found impossible for their subject's declared type. */
  impossibleExpectations?: FailureEvidence['impossibleExpectations'];
  /** The workspace root as the test runner's stack traces spell it, to relativize frames. */
  workspaceRoot: string;
  /** The rendered tests' type errors against the code before the Coder wrote it (see FailureEvidence). */
  testErrorsBeforeCoder?: CodeDiagnostic[];
  /** Rendered tests or the ticket the code changed during the attempt: the code's fault, whatever is claimed. */
  tampered?: FailureEvidence['tampered'];
  /** A held-out case that contradicts a visible one (checks/heldOutFacts.ts): no code can pass both. */
  heldOutFact?: MachineFact;
  /** The changed code structure of this attempt and of the previous one, when it was routed to code (repeatGuard.ts). */
  repeat?: { current: ChangeShape; previous: ChangeShape };
}

/** Everything the guards read but the diagnosis: what the routing corpus freezes per case. */
export type RouterFacts = Omit<RouterInputs, 'diagnosis'>;
