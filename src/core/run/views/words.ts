import type { EvidenceSource, FailureKind } from '../../schema/diagnosis';
import type { ModelRole, Route, RunOutcome } from '../../schema/events';
import type { TicketOp } from '../../schema/ticket';
import type { AttemptState } from '../reducer';

/** A sentence begun with `s`: its first letter a capital (a ticket id or a name may start it in lower case). */
export const capitalized = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

/**
 * The plain words every view uses for the log's internal names (outcomes, routes, guard
 * verdicts, evidence sources, who decided), so no user reads `needsOperator`, `testPlan` or
 * "guard notNeeded". One owner: the tree, the webview, the CLI's report and the notifications
 * all say the same thing.
 */

/** What the Debugger or a correction says is wrong, as a noun phrase. */
export function whatIsWrong(kind: FailureKind | 'testPlan' | 'op' | Route | (string & {})): string {
  switch (kind) {
    case 'code':
      return 'the code';
    case 'manifest':
      return 'the scope (the files the Coder may change)';
    case 'test':
    case 'testPlan':
      return 'the test plan';
    case 'ticket':
      return 'the ticket';
    case 'op':
      return 'a prepared edit';
    case 'escalate':
      return 'nothing the run can fix by itself';
    default:
      return `the ${kind}`;
  }
}

/** A model role by the name the README and the prompts give it. */
export function roleWords(role: ModelRole): string {
  return { coder: 'Coder', debugger: 'Debugger', reviewer: 'Implementation Reviewer', testReviewer: 'Test Reviewer', drafter: 'Drafter' }[
    role
  ];
}

/** Where a route sends the fix. */
export function routeWords(route: Route): string {
  switch (route) {
    case 'code':
      return 'back to the Coder';
    case 'manifest':
      return 'to you: change the scope';
    case 'test':
      return 'to you: change the test plan';
    case 'ticket':
      return 'to you: change the ticket';
    case 'escalate':
      return 'to you: the run stops';
  }
}

/** The router's guard: did a deterministic check back the route? */
export function guardWords(verdict: 'confirmed' | 'abstained' | 'overridden' | 'notNeeded' | (string & {})): string {
  switch (verdict) {
    case 'confirmed':
      return 'confirmed by a check';
    case 'abstained':
      return 'no check could confirm it';
    case 'overridden':
      return 'overruled by a check';
    case 'notNeeded':
      return 'no check needed';
    default:
      return verdict;
  }
}

/** How a run ended, or where it stands. */
export function outcomeWords(outcome: RunOutcome | 'running' | 'interrupted'): string {
  switch (outcome) {
    case 'passed':
      return 'passed';
    case 'failed':
      return 'failed';
    case 'needsOperator':
      return 'waiting for your decision';
    case 'cancelled':
      return 'cancelled';
    case 'error':
      return 'stopped by an error';
    case 'running':
      return 'running';
    case 'interrupted':
      return 'interrupted';
  }
}

/** Where a quoted piece of evidence was taken from. */
export function sourceWords(source: EvidenceSource): string {
  switch (source) {
    case 'testOutput':
      return 'the test output';
    case 'diagnostics':
      return 'the type errors';
    case 'testFile':
      return 'the test file';
    case 'implementation':
      return 'the code';
    case 'manifest':
      return 'the scope';
    case 'history':
      return 'earlier attempts';
  }
}

/** Who accepted or rejected a correction. */
export function deciderWords(by: string): string {
  switch (by) {
    case 'webview':
      return 'you, in the run view';
    case 'vscode':
      return 'you, in the editor';
    case 'cli':
      return 'you, on the command line';
    default:
      return by;
  }
}

/**
 * Why an attempt failed, in one line: the first check that failed it, so an attempt whose tests
 * passed never just says "failed". undefined when it did not fail.
 */
export function whyAttemptFailed(a: AttemptState): string | undefined {
  if (a.status !== 'failed') return undefined;
  if (a.tampered.length) return `the code under test changed ${a.tampered.map((t) => t.path).join(', ')}`;
  if (a.parse && !a.parse.ok) return `${a.parse.problems.length} syntax problem(s)`;
  const typeErrors = a.diagnostics?.diagnostics.filter((d) => d.category === 'error').length ?? 0;
  if (a.diagnostics && !a.diagnostics.ok) return `${typeErrors} type error(s)`;
  if (a.lint?.status === 'failed') return `${a.lint.problems.length} lint problem(s)`;
  if (a.lint?.status === 'error') return `the linter could not run${a.lint.detail ? `: ${a.lint.detail}` : ''}`;
  if (a.tests && a.tests.status !== 'passed')
    return a.tests.status === 'timeout' ? 'the tests timed out' : `${a.tests.failed} test(s) failed`;
  if (a.projectTests?.newlyFailing.length) return `${a.projectTests.newlyFailing.length} existing test(s) now fail`;
  if (a.refused.length) return `${a.refused.length} write(s) refused`;
  return 'a check failed';
}

/**
 * Where a run stands, as its views say it: a rolled-back run's changes are gone, so that comes
 * before how it once ended. `status` is what the host knows beyond the log (an interrupted run).
 */
export function runStatusWords(state: { rolledBack: boolean }, status: RunOutcome | 'running' | 'interrupted'): string {
  return state.rolledBack ? 'rolled back' : outcomeWords(status);
}

/** What a recovery rung did, in words: the rung numbers are the ladder's, not the user's. */
export function rungWords(rung: number): string {
  switch (rung) {
    case 1:
      return 'asked the Coder again: its answer never became code';
    case 2:
      return 'asked the Coder again, with the failure';
    case 3:
      return 'asked the Coder once more, thinking longer';
    case 4:
      return 'the Coder ran the checks on its draft';
    default:
      return 'asked the Coder again';
  }
}

/** A gate by what it checks, for people: the names are the settings' values. */
export function gateWords(gate: string): string {
  switch (gate) {
    case 'typecheck':
      return 'Type check of the whole project';
    case 'lint':
      // The same words as the attempts' lint: both lint the files the run changed.
      return 'Lint';
    case 'build':
      return 'Build';
    case 'projectTests':
      return "The project's tests";
    case 'implementationReview':
      return 'Review of the code';
    case 'testReview':
      return 'Review of the tests';
    case 'coverage':
      return 'Coverage of the changed lines';
    default:
      return gate;
  }
}

/** What a correction proposes, as the change it makes. */
export function proposalWords(kind: 'scopeAddition' | 'testPlan' | 'ticketEdit' | 'ticketUnclear' | 'none' | (string & {})): string {
  switch (kind) {
    case 'scopeAddition':
      return 'add files to the scope';
    case 'testPlan':
      return 'a corrected test plan';
    case 'ticketEdit':
      return 'an edit of the ticket';
    case 'ticketUnclear':
      return 'a clearer ticket';
    case 'none':
      return 'no change';
    default:
      return kind;
  }
}

/** A baseline taken from an earlier run (src/core/stages/checks/keptBaselines.ts), as every view says it. */
export const REUSED = 'as an earlier run measured it on this same code (nothing it reads has changed since)';

/** What a ticket's prepared edit (an op) does, by what it changes rather than by its name in the ticket's schema. */
export function opWords(op: TicketOp): string {
  switch (op.op) {
    case 'renameSymbol':
      return `rename ${op.symbol} to ${op.to} in ${op.file}`;
    case 'addImport':
      return `import ${op.names.join(', ')} from ${op.from} in ${op.file}`;
    case 'setInterfaceField':
      return `set the field ${op.interface}.${op.field} in ${op.file}`;
    case 'changeTypeAnnotation':
      return `change the type of ${op.symbol} in ${op.file}`;
    case 'declare':
      return `add ${op.exports.length === 1 ? 'a new export' : `${op.exports.length} new exports`} to ${op.file}`;
  }
}

/** The fixes the language service makes with no model call (a missing import), named as the editor names them. */
export const QUICK_FIXES = "the editor's quick fixes";

/** The scripted model on the run page: it replays answers recorded for the ticket, and says so wherever a model is named. */
export const RECORDED_SAMPLE = 'Recorded sample (not a live model)';
