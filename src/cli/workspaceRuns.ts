import { CorruptLogError } from '../core/run/logCodec';
import { reduceRun, type RunState } from '../core/run/reducer';
import { FileRunStore } from '../node/store/fileRunStore';

/** Every run of the workspace's store, reduced; a damaged log is named through `warn` and skipped, so it hides no other run. */
export async function loadWorkspaceRuns(ws: string, warn: (message: string) => void): Promise<RunState[]> {
  const store = new FileRunStore(ws);
  const runs: RunState[] = [];
  for (const id of await store.listRuns()) {
    let loaded;
    try {
      loaded = await store.load(id);
    } catch (err) {
      if (!(err instanceof CorruptLogError)) throw err;
      warn(`warning: run ${id} skipped: ${err.message}`);
      continue;
    }
    if (loaded.torn)
      warn(`warning: run ${id}: the last line (${loaded.torn.line}) of its log is torn, probably by a crash mid-write; read without it`);
    runs.push(reduceRun(id, loaded.events));
  }
  return runs;
}
