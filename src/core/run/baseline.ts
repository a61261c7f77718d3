import type { RunEvent } from '../schema/events';

type Writer = Extract<RunEvent, { type: 'files.written' }>['by'];

/**
 * Each path the run wrote, with the blob hash of its content before the run's first write
 * of it (null: the run created it). Rollback restores these; the repeat guard and the gates'
 * cumulative diff measure changes against them. `writers` limits it to some writers' files.
 */
export function baselineOf(events: readonly RunEvent[], writers?: ReadonlySet<Writer>): Map<string, string | null> {
  const baseline = new Map<string, string | null>();
  for (const e of events) {
    if (e.type !== 'files.written' || (writers && !writers.has(e.by))) continue;
    for (const f of e.files) if (!baseline.has(f.path)) baseline.set(f.path, f.before);
  }
  return baseline;
}
