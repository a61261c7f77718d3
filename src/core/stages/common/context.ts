import type { CandidateCheckPort } from '../../ports/candidates';
import type { DiagnosticsPort, LintPort, ParserPort, TestRunnerPort } from '../../ports/checks';
import type { ClockPort, HashFn } from '../../ports/clock';
import type { EnvironmentPort } from '../../ports/environment';
import type { ModelPort } from '../../ports/model';
import type { OpsPort } from '../../ports/ops';
import type { RunStorePort } from '../../ports/runStore';
import type { SandboxStatus } from '../../ports/sandbox';
import type { WorkspacePort } from '../../ports/workspace';
import type { GateDeps } from './gateConfig';
import type { RunLog, RunEventListener } from '../../run/runLog';
import { DEFAULT_RECOVERY, defaultBudget } from '../../recovery/policy';
import type { Budget, RecoveryPolicy, RunOwner } from '../../schema/events';
import type { Manifest } from '../../schema/manifest';
import type { Ticket } from '../../schema/ticket';
import type { Oracle } from './oraclePins';
import type { Diagnosis } from '../../schema/diagnosis';
import type { DebuggerInputs } from './evidence';
import type { RouteDecision, RouterFacts } from './routing';

/**
 * What a run needs from the world, wired by hand: `wireNodeDeps` (src/node/wire.ts) builds it
 * for the CLI, the demo and the tests; the extension's run service (src/vscode/runService.ts)
 * gets it from `depsForFolder` (src/vscode/deps.ts), which calls the same function and swaps in
 * the editor's pieces. Optional checks are simply not in the pipeline when absent, and the log
 * says so.
 */
export interface PipelineDeps {
  workspace: WorkspacePort;
  /** The absolute workspace root, as stack traces spell it (the router relativizes frames). */
  workspaceRoot: string;
  store: RunStorePort;
  clock: ClockPort;
  hash: HashFn;
  model: ModelPort;
  tests: TestRunnerPort;
  parser?: ParserPort;
  diagnostics?: DiagnosticsPort;
  lint?: LintPort;
  /** Typed pre-Coder ops; without it, a ticket with ops stops at its first op with a correction request. */
  ops?: OpsPort;
  /** Scratch copies for the Coder's `run_tests` tool (rung 4); without it the tool is not offered. */
  candidates?: CandidateCheckPort;
  /** The end-of-ticket gates; without it a run ends when the last attempt's tests pass. */
  gates?: GateDeps;
  /** Per test run. */
  testTimeoutMs?: number;
  /** Checks before a run: dependencies installed, uncommitted work in scope. Absent: not checked. */
  environment?: EnvironmentPort;
  /** This process, recorded in the log so a view can tell a run whose process died (interrupted). */
  owner?: RunOwner;
  onEvent?: RunEventListener;
  /** Whether the processes the run starts are in the OS sandbox; recorded in `run.started`. */
  sandbox?: SandboxStatus;
  /**
   * Sees each routing decision with everything it was made from (the Debugger's input, the
   * guards' facts): the routing corpus is captured through it. Absent in a product run.
   */
  observeRouting?: (observed: RoutingObservation) => void;
  /** Scrubs secret values (the user's keys and tokens) from every event before it is kept or shown. */
  redact?: (text: string) => string;
}

export interface RoutingObservation {
  attempt: number;
  inputs: DebuggerInputs;
  facts: RouterFacts;
  diagnosis: Diagnosis | null;
  decision: RouteDecision;
}

/** Enough attempts for the whole recovery ladder (see src/core/recovery/ladder.ts). */
export const DEFAULT_BUDGET: Budget = defaultBudget(DEFAULT_RECOVERY);
export const DEFAULT_TEST_TIMEOUT_MS = 120_000;

/** One run in progress: the log it writes and what it has derived so far. */
export interface RunContext {
  deps: PipelineDeps;
  log: RunLog;
  ticket: Ticket;
  ticketPath: string;
  manifest: Manifest;
  budget: Budget;
  /** The recovery rungs' settings; the defaults when absent. */
  recovery?: RecoveryPolicy;
  /** The run's signal: the caller's cancel and the wall-time budget (src/core/recovery/budgets.ts). */
  signal: AbortSignal;
  startedAt: number;
  /** The rendered tests and the ticket, pinned when written or read (checks/oracle.ts). */
  oracle?: Oracle;
}
