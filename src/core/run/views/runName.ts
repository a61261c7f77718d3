import { whenWords } from './time';

/**
 * A run as a person names it in a dialog or a notification: its ticket and when it ran, as
 * `BLOG-1's run from 10:49` or `BLOG-1's run from 5 Dec, 10:49`. Its id is for the log and a bug
 * report: two runs of one ticket are told apart by their time. `now` and the zone are the host's.
 */
export function runName(run: { ticketId: string; startedAt?: string }, now: Date, timeZone?: string): string {
  const whose = run.ticketId ? `${run.ticketId}'s run` : 'the run';
  return run.startedAt ? `${whose} from ${whenWords(run.startedAt, now, timeZone)}` : whose;
}
