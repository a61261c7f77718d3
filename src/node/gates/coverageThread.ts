import { Worker } from 'node:worker_threads';
import { errorMessage } from '../../core/errors';
import type { FileLineHits } from '../../core/ports/gates';
import { checkToolOutput } from '../../core/schema/toolOutput';
import { FromCoverage, type ToCoverage } from './coverageProtocol';

export interface CoverageReader {
  /** `collectV8Coverage`'s answer, or its error word for word. Asked once; the worker ends with it. */
  collect(
    dir: string,
    root: string,
    measure: readonly string[],
    pids: ReadonlySet<number> | undefined,
    texts?: ReadonlyMap<string, string | null>,
  ): Promise<{ files: FileLineHits[]; unloaded: string[] }>;
  /** Ends the worker when it will not be asked (the test run failed or was cancelled). */
  dispose(): void;
}

/**
 * `collectV8Coverage` in a worker thread of its own (`dist/coverageWorker.js`), with the same
 * answer and the same errors, word for word: parsing a test process's coverage file takes a
 * quarter of a second on two busy cores, long enough for the editor's window to be felt frozen.
 *
 * Started with the test run it reads, and asked when that run has ended: the worker loads while
 * the tests run, so the verdict does not wait for a thread to start after them. As in this
 * thread, a cancel waits for the answer: the test run it reads has ended.
 */
export function startCoverageReader(script: string): CoverageReader {
  const worker = new Worker(script, { execArgv: [] });
  let settled = false;
  let crash: string | undefined;
  let answer: ((raw: unknown) => void) | undefined;
  let exited: ((code: number) => void) | undefined;
  let exitCode: number | undefined;
  worker.on('message', (raw: unknown) => answer?.(raw));
  worker.on('error', (err) => {
    crash = errorMessage(err);
  });
  worker.on('exit', (code) => {
    exitCode = code;
    exited?.(code);
  });
  const stopped = (code: number) =>
    new Error(`the coverage worker stopped (exit code ${code})${crash ? `: ${crash}` : ''} before it answered`);
  return {
    collect(dir, root, measure, pids, texts) {
      const asked: ToCoverage = {
        dir,
        root,
        measure: [...measure],
        ...(pids ? { pids: [...pids] } : {}),
        ...(texts ? { texts: Object.fromEntries(texts) } : {}),
      };
      return new Promise((resolve, reject) => {
        const settle = (end: () => void) => {
          if (settled) return;
          settled = true;
          void worker.terminate();
          end();
        };
        answer = (raw) => {
          try {
            const got = checkToolOutput(FromCoverage, raw, "the coverage worker's answer is not its protocol");
            settle(() =>
              got.type === 'collected' ? resolve({ files: got.files, unloaded: got.unloaded }) : reject(new Error(got.message)),
            );
          } catch (err) {
            settle(() => reject(err instanceof Error ? err : new Error(String(err))));
          }
        };
        exited = (code) => settle(() => reject(stopped(code)));
        if (exitCode !== undefined) return exited(exitCode);
        worker.postMessage(asked);
      });
    },
    dispose() {
      if (settled) return;
      settled = true;
      void worker.terminate();
    },
  };
}
