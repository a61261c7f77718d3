/**
 * The worker thread of the baseline's key (baselineFingerprint.ts): the stamps of the installed
 * packages' files, tens of thousands of synchronous calls, off the thread that started the run.
 * Asked once through its workerData; answers once, then ends. Built to dist/fingerprintWorker.js.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { z } from 'zod';
import { folderStampsSync } from './packageStamps';

const Asked = z
  .object({
    folders: z.array(z.object({ name: z.string(), real: z.string(), followLinks: z.boolean() }).strict()),
    skip: z.array(z.string()),
  })
  .strict();

const asked = Asked.parse(workerData);
parentPort?.postMessage(folderStampsSync(asked.folders, asked.skip));
