import { resolveCorrection, startRun, type RunResult } from '../../../src/core';
import type { ModelScript } from '../../../src/node/models/scripted';
import { scriptPosition } from '../../../src/node/models/scripted';
import type { TestRunRequest } from '../../../src/core/ports/checks';
import type { PipelineDeps } from '../../../src/core/stages/common/context';
import type { RunState } from '../../../src/core/run/reducer';
import type { Budget, RecoveryPolicy, RunEvent } from '../../../src/core/schema/events';
import { fakeDeps, scripted, ticketPathOf, type FakeOptions, type FakeRig } from '../../fakes/fakeDeps';

/**
 * The pure tier's runs: a fixture ticket through the core's startRun and resolveCorrection on
 * the fakes (test/fakes/), with the scripted model. What the checkers answer was recorded from
 * real runs (scripts/recordFakes.ts); what the model answers is the script's.
 */

export interface PureRunOptions extends FakeOptions {
  fixture?: string;
  script?: Partial<ModelScript>;
  budget?: Budget;
  recovery?: Partial<RecoveryPolicy>;
  signal?: AbortSignal;
  /** Changes the wired ports before the run: a port that throws, a fault. */
  patch?: (deps: PipelineDeps) => void;
}

export interface PureRun extends RunResult {
  rig: FakeRig;
  ticket: string;
  fixture: string;
  events: RunEvent[];
}

export async function pureRun(ticket: string, o: PureRunOptions = {}): Promise<PureRun> {
  const fixture = o.fixture ?? 'blog-api';
  const rig = fakeDeps(fixture, scripted(fixture, ticket, o.script), o);
  o.patch?.(rig.deps);
  const r = await startRun(rig.deps, {
    ticketPath: ticketPathOf(ticket),
    budget: o.budget,
    recovery: o.recovery,
    signal: o.signal ?? new AbortController().signal,
  });
  return { ...r, rig, ticket, fixture, events: await eventsOf(rig, r.runId) };
}

/** The operator's decision, with the script read on from where the run left it (as the CLI wires it). */
export async function decide(
  run: PureRun,
  decision: 'accept' | 'reject',
  o: { reason?: string; requestId?: string; script?: Partial<ModelScript> } = {},
): Promise<PureRun> {
  const start = scriptPosition(run.runId, await eventsOf(run.rig, run.runId));
  const deps = run.rig.withModel(scripted(run.fixture, run.ticket, o.script, start));
  const r = await resolveCorrection(deps, run.runId, {
    decision,
    reason: o.reason,
    by: 'test',
    signal: new AbortController().signal,
    requestId: o.requestId,
  });
  return { ...run, ...r, events: await eventsOf(run.rig, r.runId) };
}

/**
 * `during` for the ticket's own test runs only: the project's tests also run once before the
 * first write (their baseline), and a test about an attempt's test run means the attempt's.
 */
export const duringTicketTests =
  (fn: (signal: AbortSignal) => Promise<void>) =>
  (request: TestRunRequest, signal: AbortSignal): Promise<void> =>
    request.files.some((f) => f.startsWith('test/ticket/')) ? fn(signal) : Promise.resolve();

/** The run's log as the store holds it: what every view reads. */
export const eventsOf = async (rig: FakeRig, runId: string): Promise<RunEvent[]> => (await rig.store.load(runId)).events;

export const callsOf = (s: RunState, role: string): number => s.modelCalls.filter((c) => c.role === role).length;
export const routesOf = (s: RunState) => s.attempts.map((a) => a.route?.route).filter(Boolean);
export const typesOf = (events: readonly RunEvent[]) => events.map((e) => e.type);
export const ofType = <T extends RunEvent['type']>(events: readonly RunEvent[], type: T) =>
  events.filter((e): e is Extract<RunEvent, { type: T }> => e.type === type);
