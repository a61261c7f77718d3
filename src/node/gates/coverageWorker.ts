/**
 * V8 coverage's worker thread, built to `dist/coverageWorker.js`. `startCoverageReader`
 * (`coverageThread.ts`) starts it with each measured test run and posts what to read once the run
 * has ended: `collectV8Coverage` parses and checks each process's coverage file (megabytes of
 * JSON, one `JSON.parse` and one schema check each) and reads the scripts back through their
 * source maps, all synchronously; here it holds only this thread.
 */
import { parentPort } from 'node:worker_threads';
import { errorMessage } from '../../core/errors';
import { checkToolOutput } from '../../core/schema/toolOutput';
import { ToCoverage, type FromCoverage } from './coverageProtocol';
import { collectV8Coverage } from './v8Coverage';

const port = parentPort;
if (!port) throw new Error('the coverage worker runs as a worker thread (node:worker_threads)');

const post = (message: FromCoverage) => port.postMessage(message);
// One question, posted when the test run it reads has ended; the caller ends the worker with the answer.
port.once('message', (raw: unknown) => {
  let asked: ToCoverage;
  try {
    asked = checkToolOutput(ToCoverage, raw, 'the coverage worker was asked something that is not its question');
  } catch (err) {
    post({ type: 'failed', message: errorMessage(err) });
    return;
  }
  collectV8Coverage(
    asked.dir,
    asked.root,
    asked.measure,
    asked.pids && new Set(asked.pids),
    asked.texts && new Map(Object.entries(asked.texts)),
  ).then(
    (measured) => post({ type: 'collected', ...measured }),
    (err: unknown) => post({ type: 'failed', message: errorMessage(err) }),
  );
});
