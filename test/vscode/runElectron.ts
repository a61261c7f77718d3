/**
 * The same in-host suite under @vscode/test-electron, for contributors whose machines can
 * download VS Code (`npm run test:electron`). CI on the offline machines uses code-server
 * (test/vscode/integration.test.ts) instead.
 */
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { runTests } from '@vscode/test-electron';
import { CANARIES } from './canaries';
import { buildSuite, ROOT, tempWorkspace } from './workbench';

void (async () => {
  const ws = tempWorkspace();
  try {
    const suite = await buildSuite();
    await runTests({
      version: process.env.VSCODE_VERSION ?? '1.100.3',
      extensionDevelopmentPath: ROOT,
      extensionTestsPath: suite,
      // The in-host suite looks for these secrets in what a run writes (test/vscode/canaries.ts).
      extensionTestsEnv: CANARIES,
      launchArgs: [ws.folder, '--disable-workspace-trust', '--skip-welcome', '--skip-release-notes'],
    });
    const results = path.join(ws.base, 'vscode-suite-results.json');
    if (existsSync(results)) console.log(readFileSync(results, 'utf8'));
  } catch (err) {
    console.error(err instanceof Error ? err.message : err);
    process.exitCode = 1;
  } finally {
    ws.dispose();
  }
})();
