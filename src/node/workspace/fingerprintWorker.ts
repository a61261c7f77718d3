/**
 * The worker thread of the baseline's key (baselineFingerprint.ts): the stamps of the installed
 * packages' files, tens of thousands of synchronous calls, off the thread that started the run.
 * Asked once through its workerData; answers once, then ends. Built to dist/fingerprintWorker.js.
 */
import { parentPort, workerData } from 'node:worker_threads';
// zod's small build: the full one would be nearly all of this worker's bundle.
import * as z from 'zod/mini';
import { folderStampsSync } from './packageStamps';

const Asked = z.strictObject({
  folders: z.array(z.strictObject({ name: z.string(), real: z.string(), followLinks: z.boolean() })),
  skip: z.array(z.string()),
});

const asked = Asked.parse(workerData);
parentPort?.postMessage(folderStampsSync(asked.folders, asked.skip));
