import { displayStatus, type OwnerProbe } from '../run/liveness';
import type { RunState } from '../run/reducer';
import type { Plan } from '../schema/plan';
import { planTicketId } from './planFiles';
import { planWaves } from './planOrder';

/**
 * Where each ticket of a plan stands, read from its tickets' runs alone: the plan keeps no log of
 * its own, so every view of it (the CLI's report, the editor's tree) is this one reading.
 *
 * - `passed`, `failed`, `waiting` (a correction for the operator), `cancelled`, `error`,
 *   `running`, `interrupted`: its newest run of the round says so;
 * - `ready`: not run yet, and every ticket it waits for passed;
 * - `queued`: not run yet, and a ticket it waits for has not ended yet;
 * - `paused`: not run yet, since a ticket it waits for ended without passing (`pausedBy`).
 */
export type PlanTicketState =
  'passed' | 'failed' | 'waiting' | 'cancelled' | 'error' | 'running' | 'interrupted' | 'ready' | 'queued' | 'paused';

/** An accepted correction of a ticket this one waits for: its code, scope or tests are not as the plan was written. */
export interface UpstreamCorrection {
  ticketId: string;
  /** What Accept changed: the scope (files added), the test plan or the ticket. */
  kind: 'scopeAddition' | 'testPlan' | 'ticketEdit' | 'other';
  /** In words: "scope + src/utils/slug.ts". */
  what: string;
}

export interface PlanTicketProgress {
  id: string;
  /** As the plan names it: an id or a path. */
  ref: string;
  after: string[];
  state: PlanTicketState;
  /** Its newest run of the round, when it has one. */
  run?: {
    runId: string;
    startedAt?: string;
    updatedAt?: string;
    attempts: number;
    costUsd: number;
    /** The run's pending correction, for a `waiting` ticket. */
    pendingCorrection?: string;
  };
  /** For `paused`: the tickets it waits for that ended without passing (directly or further up). */
  pausedBy: string[];
  /** Corrections accepted on tickets it waits for, directly or further up, in this round. */
  upstreamCorrections: UpstreamCorrection[];
}

export interface PlanProgress {
  planId: string;
  /** The round read: the newest one of the plan's runs, absent when none ran. */
  round?: string;
  /** In the order they can run: the plan's waves, one after another. */
  tickets: PlanTicketProgress[];
  /** passed: every ticket passed; running: some ticket runs; paused: nothing more can run without the operator; open: tickets are left to run. */
  verdict: 'passed' | 'running' | 'paused' | 'open' | 'notStarted';
}

/**
 * The plan's newest round: rounds are times from the run clock, so the greatest is the newest. A
 * round whose runs are all rolled back left nothing behind, and is not one.
 */
export function newestRound(planId: string, runs: readonly RunState[]): string | undefined {
  let round: string | undefined;
  for (const r of runs) if (r.plan?.id === planId && !r.rolledBack && (round === undefined || r.plan.round > round)) round = r.plan.round;
  return round;
}

const ENDED_BADLY: ReadonlySet<PlanTicketState> = new Set(['failed', 'waiting', 'cancelled', 'error', 'interrupted', 'paused']);

function runState(run: RunState, alive: OwnerProbe): PlanTicketState {
  const s = displayStatus(run, alive);
  return s === 'needsOperator' ? 'waiting' : s;
}

function correctionWords(c: RunState['corrections'][number]): Omit<UpstreamCorrection, 'ticketId'> {
  const p = c.request.proposal;
  if (p.kind === 'scopeAddition') return { kind: 'scopeAddition', what: `scope + ${p.paths.join(', ')}` };
  if (p.kind === 'testPlan') return { kind: 'testPlan', what: 'its test plan was corrected' };
  if (p.kind === 'ticketEdit') return { kind: 'ticketEdit', what: `the ticket was edited: ${p.summary}` };
  return { kind: 'other', what: 'a correction was accepted' };
}

/**
 * The plan's progress in `round` (by default its newest), from the store's runs. A run rolled
 * back no longer counts: its change is gone, so its ticket is to run again.
 */
export function planProgress(plan: Plan, file: string, runs: readonly RunState[], alive: OwnerProbe, round?: string): PlanProgress {
  const read = round ?? newestRound(plan.id, runs);
  const newest = new Map<string, RunState>();
  for (const r of runs) {
    if (read === undefined || r.plan?.id !== plan.id || r.plan.round !== read || r.rolledBack) continue;
    const seen = newest.get(r.ticketId);
    if (!seen || r.runId > seen.runId) newest.set(r.ticketId, r);
  }
  const entries = new Map(plan.tickets.map((t) => [planTicketId(t), t]));
  const byId = new Map<string, PlanTicketProgress>();
  for (const id of planWaves(plan, file).flat()) {
    const entry = entries.get(id)!;
    const run = newest.get(id);
    const upstreamCorrections = entry.after
      .flatMap((a) => byId.get(a)?.upstreamCorrections ?? [])
      .concat(
        entry.after.flatMap((a) =>
          (newest.get(a)?.corrections ?? []).filter((c) => c.status === 'accepted').map((c) => ({ ticketId: a, ...correctionWords(c) })),
        ),
      )
      .filter((u, i, all) => all.findIndex((v) => v.ticketId === u.ticketId && v.what === u.what) === i);
    const pausedBy = [
      ...new Set(
        entry.after.flatMap((a) => {
          const dep = byId.get(a)!;
          return dep.state === 'paused' ? dep.pausedBy : ENDED_BADLY.has(dep.state) ? [a] : [];
        }),
      ),
    ];
    let state: PlanTicketState;
    if (run) state = runState(run, alive);
    else if (pausedBy.length) state = 'paused';
    else state = entry.after.every((a) => byId.get(a)!.state === 'passed') ? 'ready' : 'queued';
    byId.set(id, {
      id,
      ref: entry.ticket,
      after: entry.after,
      state,
      ...(run
        ? {
            run: {
              runId: run.runId,
              startedAt: run.startedAt,
              updatedAt: run.updatedAt,
              attempts: run.finished?.attempts ?? run.attempts.length,
              costUsd: run.usage.costUsd,
              ...(state === 'waiting' ? { pendingCorrection: run.corrections.find((c) => c.status === 'pending')?.request.id } : {}),
            },
          }
        : {}),
      pausedBy: state === 'paused' ? pausedBy : [],
      upstreamCorrections,
    });
  }
  const tickets = [...byId.values()];
  return { planId: plan.id, ...(read ? { round: read } : {}), tickets, verdict: verdictOf(tickets, read) };
}

function verdictOf(tickets: readonly PlanTicketProgress[], round: string | undefined): PlanProgress['verdict'] {
  if (round === undefined) return 'notStarted';
  if (tickets.every((t) => t.state === 'passed')) return 'passed';
  if (tickets.some((t) => t.state === 'running')) return 'running';
  return tickets.some((t) => t.state === 'ready' || t.state === 'queued') ? 'open' : 'paused';
}
