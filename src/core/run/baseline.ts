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

/** Each path the run wrote, with the blob hash of the content it last left there. */
export function lastWrittenOf(events: readonly RunEvent[]): Map<string, string> {
  const last = new Map<string, string>();
  for (const e of events) if (e.type === 'files.written') for (const f of e.files) last.set(f.path, f.after);
  return last;
}

/** Each path's permission bits before the run first touched it (null: absent), and the folders the run created. */
export function workspaceBaselineOf(events: readonly RunEvent[]): { modes: Map<string, number | null>; createdFolders: string[] } {
  const modes = new Map<string, number | null>();
  const createdFolders = new Set<string>();
  for (const e of events) {
    if (e.type !== 'file.baselined' || modes.has(e.path)) continue;
    modes.set(e.path, e.mode);
    for (const f of e.createdFolders) createdFolders.add(f);
  }
  return { modes, createdFolders: [...createdFolders] };
}
