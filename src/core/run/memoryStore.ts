import type { LoadedLog, RunStorePort } from '../ports/runStore';

/**
 * A run store that keeps nothing on disk: for logs that describe no run of the workspace, such
 * as rung 4's scratch checks and a draft's model calls. Events are kept by the RunLog that
 * writes them; blobs (prompts, answers) live here in memory for the caller's own reads.
 * Without a hash function a blob is keyed by its order.
 */
export function memoryStore(hash?: (s: string) => string): RunStorePort {
  const blobs = new Map<string, string>();
  return {
    ephemeral: true,
    append: () => Promise.resolve(),
    load: (): Promise<LoadedLog> => Promise.resolve({ events: [], torn: null }),
    putBlob: (_runId, content) => {
      const h = hash ? hash(content) : `blob-${blobs.size + 1}`;
      blobs.set(h, content);
      return Promise.resolve(h);
    },
    getBlob: (_runId, h) => Promise.resolve(blobs.get(h) ?? ''),
    listRuns: () => Promise.resolve([]),
    deleteRun: () => Promise.resolve(),
    logPath: () => '(in memory)',
  };
}
