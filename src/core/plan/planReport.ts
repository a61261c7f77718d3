import { durationWords } from '../run/views/time';
import { outcomeWords } from '../run/views/words';
import type { PlanProgress, PlanTicketProgress, PlanTicketState } from './planProgress';

/** A ticket's state in the words every view of a plan uses. */
export function planStateWords(t: Pick<PlanTicketProgress, 'state' | 'pausedBy' | 'after'>): string {
  const s: PlanTicketState = t.state;
  switch (s) {
    case 'waiting':
      return outcomeWords('needsOperator');
    case 'ready':
      return 'not run yet';
    case 'queued':
      return `waits for ${t.after.join(', ')}`;
    case 'paused':
      return `paused: ${t.pausedBy.join(', ')} did not pass`;
    default:
      return outcomeWords(s);
  }
}

/** The plan's verdict in one sentence. */
export function planVerdictWords(p: PlanProgress): string {
  const passed = p.tickets.filter((t) => t.state === 'passed').length;
  const of = `${passed} of ${p.tickets.length} tickets passed`;
  switch (p.verdict) {
    case 'passed':
      return `${p.planId} passed: every ticket passed`;
    case 'notStarted':
      return `${p.planId} has not run yet`;
    case 'running':
      return `${p.planId} is running: ${of}`;
    case 'open':
      return `${p.planId} is not finished: ${of}`;
    case 'paused': {
      const waiting = p.tickets.filter((t) => t.state === 'waiting').map((t) => t.id);
      return `${p.planId} is paused: ${of}${waiting.length ? `; ${waiting.join(', ')} ${waiting.length === 1 ? 'waits' : 'wait'} for your decision` : ''}`;
    }
  }
}

/** How long a ticket's run took, from its log's first and last event. */
export function ticketTime(t: PlanTicketProgress): number | undefined {
  const r = t.run;
  if (!r?.startedAt || !r.updatedAt) return undefined;
  return Date.parse(r.updatedAt) - Date.parse(r.startedAt);
}

/** A cost as the plan's views say it: cents, or four places for a fraction of one. */
export const dollars = (usd: number) => `$${usd.toFixed(usd > 0 && usd < 0.01 ? 4 : 2)}`;

/** The plan's report as lines of text: the verdict, each ticket with its state, cost and time, and what to do next. */
export function formatPlanReport(p: PlanProgress, file: string): string {
  const lines = [planVerdictWords(p)];
  for (const t of p.tickets) {
    const ms = ticketTime(t);
    const facts = t.run
      ? [
          `${t.run.attempts} attempt${t.run.attempts === 1 ? '' : 's'}`,
          dollars(t.run.costUsd),
          ...(ms === undefined ? [] : [durationWords(ms)]),
        ]
      : [];
    lines.push(`  ${t.id}: ${planStateWords(t)}${facts.length ? ` (${facts.join(', ')})` : ''}`);
    if (t.after.length && t.state !== 'queued') lines.push(`    after ${t.after.join(', ')}`);
    for (const u of t.upstreamCorrections) lines.push(`    ${u.ticketId} was corrected: ${u.what}`);
    if (t.run) lines.push(`    run ${t.run.runId}`);
  }
  const total = p.tickets.reduce((sum, t) => sum + (t.run?.costUsd ?? 0), 0);
  lines.push(`Cost: ${dollars(total)}`);
  const next = nextStep(p, file);
  if (next) lines.push(next);
  return lines.join('\n');
}

/** What the operator does next, when the plan cannot go on by itself. */
function nextStep(p: PlanProgress, file: string): string | undefined {
  const waiting = p.tickets.find((t) => t.state === 'waiting' && t.run);
  if (waiting)
    return `Next: settle ${waiting.id}'s correction (ticket-runner resolve ${waiting.run!.runId} accept|reject), then ticket-runner plan resume ${file}`;
  if (p.verdict === 'paused' || p.verdict === 'open')
    return `Next: read why the tickets above did not pass, fix their tickets or code, then ticket-runner plan resume ${file}`;
  if (p.verdict === 'notStarted') return `Next: ticket-runner plan run ${file}`;
  return undefined;
}
