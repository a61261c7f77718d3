import { Worker } from 'node:worker_threads';
import { errorMessage } from '../../core/errors';
import type { FileLineHits } from '../../core/ports/gates';
import { checkToolOutput } from '../../core/schema/toolOutput';
import { FromCoverage, type ToCoverage } from './coverageProtocol';

/**
 * `collectV8Coverage` in a worker thread of its own (`dist/coverageWorker.js`), with the same
 * answer and the same errors, word for word: parsing a test process's coverage file takes a
 * quarter of a second on two busy cores, long enough for the editor's window to be felt frozen.
 * The worker ends with its answer. As in this thread, a cancel waits for it: the test run it reads has ended.
 */
export function collectV8CoverageOffThread(script: string, dir: string, root: string, measure: readonly string[], pids: ReadonlySet<number> | undefined): Promise<{ files: FileLineHits[]; unloaded: string[] }> {
  const asked: ToCoverage = { dir, root, measure: [...measure], ...(pids ? { pids: [...pids] } : {}) };
  return new Promise((resolve, reject) => {
    const worker = new Worker(script, { workerData: asked, execArgv: [] });
    let settled = false;
    let crash: string | undefined;
    const settle = (end: () => void) => {
      if (settled) return;
      settled = true;
      void worker.terminate();
      end();
    };
    worker.on('message', (raw: unknown) => {
      try {
        const answer = checkToolOutput(FromCoverage, raw, "the coverage worker's answer is not its protocol");
        settle(() => (answer.type === 'collected' ? resolve({ files: answer.files, unloaded: answer.unloaded }) : reject(new Error(answer.message))));
      } catch (err) {
        settle(() => reject(err instanceof Error ? err : new Error(String(err))));
      }
    });
    worker.on('error', (err) => {
      crash = errorMessage(err);
    });
    worker.on('exit', (code) => settle(() => reject(new Error(`the coverage worker stopped (exit code ${code})${crash ? `: ${crash}` : ''} before it answered`))));
  });
}
