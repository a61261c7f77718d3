import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { WorkerManager } from '../../../src/node/sandbox/sandboxThread';

/**
 * A command's end waits for the sandbox runtime's worker thread to say it removed its mount
 * points (`cleaned`), so that what looks at the workspace next finds none of them. A worker that
 * never says so, or that stops, must not hold a run: these stand-in workers speak the protocol
 * (they start as the real one does) and then fail to answer as told.
 */
describe("the sandbox runtime's worker thread: a command's end waits for its cleanup, never for ever", function () {
  this.timeout(30_000);
  let dir: string;
  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'tr-sandbox-thread-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** A worker script that says it started, then does `onMessage` with each message. */
  function worker(name: string, onMessage: string): string {
    const file = path.join(dir, `${name}.cjs`);
    writeFileSync(
      file,
      `const { parentPort } = require('node:worker_threads');\nparentPort.on('message', (m) => { ${onMessage} });\nparentPort.postMessage({ type: 'started' });\n`,
    );
    return file;
  }

  async function started(script: string): Promise<WorkerManager> {
    const m = await WorkerManager.start(script);
    assert.ok(!('off' in m), JSON.stringify(m));
    return m;
  }

  /** Workers whose answer settles the wait at once, each with what it does when asked. */
  const settling: [string, string, string][] = [
    [
      'settles when the worker says cleaned, for that command',
      'answers',
      "if (m.type === 'afterCommand') parentPort.postMessage({ type: 'cleaned', id: m.id });",
    ],
    ['a worker that stops while asked settles the wait at once', 'exits', "if (m.type === 'afterCommand') process.exit(3);"],
    [
      "an answer out of the protocol is the build's mismatch: the wait settles and the worker is stopped",
      'garbled',
      "if (m.type === 'afterCommand') parentPort.postMessage({ type: 'cleaned', id: 'not a number' });",
    ],
  ];
  for (const [title, name, onMessage] of settling) {
    it(title, async () => {
      const m = await started(worker(name, onMessage));
      const t = Date.now();
      await m.cleanupAfterCommand();
      assert.ok(Date.now() - t < 2_000, `settled in ${Date.now() - t} ms`);
    });
  }

  it('a worker that never answers holds the command for its wait (5 s) and no longer', async () => {
    const m = await started(worker('silent', ''));
    const t = Date.now();
    await m.cleanupAfterCommand();
    const waited = Date.now() - t;
    assert.ok(waited >= 4_900 && waited < 15_000, `waited ${waited} ms`);
  });
});
