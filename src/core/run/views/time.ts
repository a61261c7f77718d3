/**
 * Times as the user reads them: in their own time zone, never the log's UTC. The host passes its
 * zone (undefined: the system's), so a test fixes it.
 */

const parts = (iso: string, timeZone: string | undefined) => {
  const f = new Intl.DateTimeFormat('en-CA', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
  });
  const p = Object.fromEntries(f.formatToParts(new Date(iso)).map((x) => [x.type, x.value]));
  return { day: `${p.year}-${p.month}-${p.day}`, minute: `${p.hour}:${p.minute}`, second: `${p.hour}:${p.minute}:${p.second}` };
};

/** A run's start, short: the time today, else the day and the time. */
export function startedLabel(startedAt: string | undefined, now: Date, timeZone?: string): string {
  if (!startedAt) return '';
  const at = parts(startedAt, timeZone);
  return at.day === parts(now.toISOString(), timeZone).day ? at.minute : `${at.day} ${at.minute}`;
}

const MINUTE_MS = 60_000;

/** The day and month, and the year only when it is not this one: `5 Dec`, `5 Dec 2025`. */
const dayWords = (iso: string, now: Date, timeZone: string | undefined) => {
  const year = (d: Date) => new Intl.DateTimeFormat('en-GB', { timeZone, year: 'numeric' }).format(d);
  const at = new Date(iso);
  return new Intl.DateTimeFormat('en-GB', {
    timeZone,
    day: 'numeric',
    month: 'short',
    year: year(at) === year(now) ? undefined : 'numeric',
  }).format(at);
};

/**
 * When something happened, as a person says it: `10:49` today, `yesterday, 10:49`, `5 Dec, 10:49`,
 * `5 Dec 2025, 10:49`. Dialogs name a run by it, so the day is the user's, not the log's UTC.
 */
export function whenWords(iso: string, now: Date, timeZone?: string): string {
  const at = parts(iso, timeZone);
  if (at.day === parts(now.toISOString(), timeZone).day) return at.minute;
  const yesterday = parts(new Date(now.getTime() - 24 * 60 * MINUTE_MS).toISOString(), timeZone).day;
  return `${at.day === yesterday ? 'yesterday' : dayWords(iso, now, timeZone)}, ${at.minute}`;
}

/**
 * How long ago, in the fewest words a narrow tree keeps: `just now`, `2 min ago`, then the time as
 * `whenWords` says it (a count of hours makes the user do the sum).
 */
export function agoWords(iso: string, now: Date, timeZone?: string): string {
  const minutes = Math.floor((now.getTime() - Date.parse(iso)) / MINUTE_MS);
  // A host clock a little behind the log's says "just now", never a time to come.
  if (minutes < 1) return 'just now';
  return minutes < 60 ? `${minutes} min ago` : whenWords(iso, now, timeZone);
}

/** A moment in full, to the second: `2026-11-23 10:00:06`. */
export function localTime(iso: string, timeZone?: string): string {
  const at = parts(iso, timeZone);
  return `${at.day} ${at.second}`;
}

/** The time of day only, to the second (the timeline's column). */
export function localClock(iso: string, timeZone?: string): string {
  return parts(iso, timeZone).second;
}

/** A duration as people say it: "0.4 s", "2.4 s", "12 s", "1 min 12 s"; the log keeps the milliseconds. */
export function durationWords(ms: number): string {
  if (ms < 9_950) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  return s % 60 ? `${Math.floor(s / 60)} min ${s % 60} s` : `${s / 60} min`;
}
