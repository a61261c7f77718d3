import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { baselineFingerprint, type FingerprintInputs } from '../../../src/node/workspace/baselineFingerprint';
import { copyFixture, REPO_ROOT } from '../../support/tempWorkspace';

/**
 * The baseline key's worker thread (dist/fingerprintWorker.js) stamps the installed packages as
 * the run's own thread would, on a fixture whose node_modules is the repository's (tens of
 * thousands of files). What it sees change is the pure tier's (test/unit/node/baselineFingerprint.test.ts):
 * the repository's packages are shared by every test running beside this one.
 */
describe('the fingerprint worker', function () {
  this.timeout(60_000);

  it('gives the digest the run thread gives', async () => {
    const ws = copyFixture();
    try {
      const inputs: FingerprintInputs = {
        root: ws.root,
        env: { PATH: process.env['PATH'] ?? '' },
        nodePath: process.execPath,
        productDir: path.join(REPO_ROOT, 'dist'),
        settings: {},
      };
      const signal = new AbortController().signal;
      const worker = path.join(REPO_ROOT, 'dist', 'fingerprintWorker.js');
      const here = await baselineFingerprint(inputs, signal);
      assert.equal(await baselineFingerprint({ ...inputs, worker }, signal), here);
      // A change the worker's part does not read (the tree's files are read here) still shows.
      writeFileSync(path.join(ws.root, 'src', 'added.ts'), 'export {};\n');
      assert.notEqual(await baselineFingerprint({ ...inputs, worker }, signal), here);
    } finally {
      ws.dispose();
    }
  });
});
