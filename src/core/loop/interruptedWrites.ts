import type { WorkspacePort } from '../ports/workspace';
import type { RunEvent } from '../schema/events';

/**
 * Clears what writes cut short by a crash left in the workspace (the adapter's temp files), for
 * every path the run wrote or set out to write: each is baselined (`file.baselined`) before its
 * first write, so the log names them all, the one a kill interrupted included, whose
 * `files.written` never came. Resume does it before going on, rollback before it removes the
 * run's folders. Housekeeping only: a path that cannot be looked at is left as it is.
 */
export async function clearInterruptedWrites(ws: WorkspacePort, events: readonly RunEvent[]): Promise<void> {
  if (!ws.removeInterruptedWrite) return;
  const paths = new Set<string>();
  for (const e of events) if (e.type === 'file.baselined') paths.add(e.path);
  for (const path of [...paths].sort()) await ws.removeInterruptedWrite(path).catch(() => undefined);
}
