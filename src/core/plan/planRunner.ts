import { UserInputError } from '../errors';
import type { OwnerProbe } from '../run/liveness';
import type { RunState } from '../run/reducer';
import type { PlanLink } from '../schema/events';
import type { Plan } from '../schema/plan';
import { outcomeWords } from '../run/views/words';
import { planProgress, type PlanProgress, type PlanTicketProgress } from './planProgress';

/**
 * What running a plan needs from its host: the CLI runs each ticket as `run` does, the editor
 * as Run Ticket does. The plan itself only decides which ticket goes next.
 */
export interface PlanRunPorts {
  /** Every run of the workspace's store, reduced (a plan's progress is read from them). */
  runs(): Promise<RunState[]>;
  alive: OwnerProbe;
  /** A new round's id, from the run clock: rounds sort by it. */
  newRound(): string;
  /** Runs one ticket from its start, as part of the plan's round; resolves with the run's end state. */
  runTicket(ticket: PlanTicketProgress, link: PlanLink, signal: AbortSignal): Promise<RunState>;
  /** Goes on with a run whose process died (`resume`). */
  resumeTicket(runId: string, signal: AbortSignal): Promise<RunState>;
  /** Puts back what a run wrote (`rollback`), before its ticket runs again from the code before it. */
  rollBack(runId: string): Promise<void>;
  /** Keeps a passed ticket's change (a commit on the plan's branch); says what it did, or nothing. */
  keep?(ticket: PlanTicketProgress, run: RunState): Promise<string | undefined>;
  /** One line of what the plan does, as it does it. */
  say(line: string): void;
}

export interface PlanRunOptions {
  plan: Plan;
  /** The plan's file, from the workspace root. */
  file: string;
  /** Go on with the newest round (`plan resume`) rather than start one. */
  resume: boolean;
  signal: AbortSignal;
}

const ticketsWord = (n: number) => `${n} ticket${n === 1 ? '' : 's'}`;

/** "NOTES-2 starts on NOTES-1's code; NOTES-1's scope + src/x.ts": what a ticket builds on. */
function startLine(t: PlanTicketProgress, again: boolean): string {
  const on = t.after.length ? ` on the code ${t.after.join(' and ')} left` : '';
  const corrected = t.upstreamCorrections.map((u) => `${u.ticketId}: ${u.what}`);
  return `${t.id} ${again ? 'runs again' : 'starts'}${on}${corrected.length ? ` (corrected since the plan was written: ${corrected.join('; ')})` : ''}`;
}

/** Why the plan cannot start or go on, before anything runs. */
function refuseStart(progress: PlanProgress, o: PlanRunOptions): void {
  if (o.resume && progress.round === undefined)
    throw new UserInputError(`${o.plan.id} has not run yet, so there is nothing to resume: ticket-runner plan run ${o.file} starts it`);
  if (progress.verdict === 'running') {
    const running = progress.tickets.filter((t) => t.state === 'running').map((t) => t.id);
    throw new UserInputError(`${o.plan.id} is running now (${running.join(', ')}): wait for it to end, or cancel it`);
  }
  if (o.resume || progress.round === undefined) return;
  if (progress.verdict === 'passed')
    throw new UserInputError(
      `${o.plan.id} already passed: its tickets' changes are in the workspace. To run it again from the start, roll back its tickets' runs first (ticket-runner rollback <runId>, newest first)`,
    );
  const passed = progress.tickets.filter((t) => t.state === 'passed').length;
  throw new UserInputError(
    `${o.plan.id} already ran, and ${passed} of its ${ticketsWord(progress.tickets.length)} passed: ticket-runner plan resume ${o.file} goes on from there`,
  );
}

/**
 * Runs a plan's tickets one after another in its order, each on the code the tickets before it
 * left, each verified as any ticket is. A ticket that ends without passing pauses the tickets
 * that wait for it, directly or further down, and the others go on. A resumed round also goes on
 * with a ticket whose run was interrupted, and runs again one that failed, was cancelled or
 * stopped on an error, from the code before its last run, which is rolled back first (once per
 * resume: its second failure is the operator's to read); a ticket
 * whose correction is not settled yet stays as it is.
 */
export async function runPlan(ports: PlanRunPorts, o: PlanRunOptions): Promise<PlanProgress> {
  const first = planProgress(o.plan, o.file, await ports.runs(), ports.alive);
  refuseStart(first, o);
  const round = o.resume ? first.round! : ports.newRound();
  const link: PlanLink = { id: o.plan.id, file: o.file, round };
  const tried = new Set<string>();
  for (;;) {
    const progress = planProgress(o.plan, o.file, await ports.runs(), ports.alive, round);
    if (o.signal.aborted) return progress;
    const again = (t: PlanTicketProgress) =>
      o.resume && !tried.has(t.id) && (t.state === 'failed' || t.state === 'cancelled' || t.state === 'error' || t.state === 'interrupted');
    const next = progress.tickets.find((t) => t.state === 'ready' || again(t));
    if (!next) return progress;
    tried.add(next.id);
    let end: RunState;
    if (next.state === 'interrupted' && next.run) {
      ports.say(`${next.id}'s run was interrupted: it goes on from its log`);
      end = await ports.resumeTicket(next.run.runId, o.signal);
    } else {
      if (next.run) await ports.rollBack(next.run.runId);
      ports.say(startLine(next, next.state !== 'ready'));
      end = await ports.runTicket(next, link, o.signal);
    }
    const ended = planProgress(o.plan, o.file, await ports.runs(), ports.alive, round);
    ports.say(endLine(next.id, end, ended));
    if (end.status === 'passed' && ports.keep) {
      const kept = await ports.keep(next, end);
      if (kept) ports.say(kept);
    }
  }
}

/** What one ticket's end means for the plan: the tickets it pauses, when it did not pass. */
function endLine(id: string, end: RunState, progress: PlanProgress): string {
  if (end.status === 'passed') return `${id} passed`;
  const paused = progress.tickets.filter((t) => t.pausedBy.includes(id)).map((t) => t.id);
  const what = end.status === 'needsOperator' ? 'waits for you to settle a correction' : outcomeWords(end.status);
  return `${id} ${what}${paused.length ? `; ${paused.join(', ')} ${paused.length === 1 ? 'waits' : 'wait'} for it` : ''}`;
}
