import type { LoadedLog, RunStorePort } from '../../src/core/ports/runStore';
import { memoryStore } from '../../src/core/run/memoryStore';
import type { RunEvent } from '../../src/core/schema/events';

/**
 * A fake of the run store (stands for src/node/store/fileRunStore.ts). The core's memoryStore
 * keeps blobs but no events (it serves logs that describe no run); a run here must be loaded
 * again (resolve, resume) and checked against what its log wrote (the oracle guard), so this
 * keeps each event as the JSON line the file store would write, and blobs in a memoryStore.
 */
export function memoryRunStore(hash: (s: string) => string): RunStorePort & { lines: Map<string, string[]> } {
  const blobs = memoryStore(hash);
  const lines = new Map<string, string[]>();
  const load = (runId: string): LoadedLog => ({ events: (lines.get(runId) ?? []).map((l) => JSON.parse(l) as RunEvent), torn: null });
  return {
    lines,
    append: (runId, event) => {
      lines.set(runId, [...(lines.get(runId) ?? []), JSON.stringify(event)]);
      return Promise.resolve();
    },
    flush: () => Promise.resolve(),
    load: (runId) => (lines.has(runId) ? Promise.resolve(load(runId)) : Promise.reject(new Error(`no run ${runId} in memory`))),
    putBlob: (runId, content) => blobs.putBlob(runId, content),
    getBlob: (runId, h) => blobs.getBlob(runId, h),
    listRuns: () => Promise.resolve([...lines.keys()].sort()),
    deleteRun: (runId) => {
      lines.delete(runId);
      return Promise.resolve();
    },
    logPath: (runId) => `(in memory)/${runId}/events.jsonl`,
  };
}
