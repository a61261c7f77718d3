import { strict as assert } from 'node:assert';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Browser } from 'playwright-core';
import { startCodeServer, workbenchUrl, type CodeServer } from './codeServer';
import { buildSuite, launchChromium, openWorkbench, ROOT, tempWorkspace } from './workbench';

interface SuiteResults {
  failures: number;
  durationMs: number;
  results: { title: string; state: string; durationMs?: number; error?: string }[];
}

/**
 * Drives the in-host suite (test/vscode/suite) in code-server: the workbench URL's payload
 * loads this repo as the development extension and the bundled suite as its tests. The
 * suite writes its results beside the workspace folder.
 */
describe('integration suite in code-server\'s extension host', function () {
  this.timeout(300_000);
  let server: CodeServer | undefined;
  let browser: Browser | undefined;
  const ws = tempWorkspace();

  after(async () => {
    await browser?.close();
    if (server) keepLogs(server.dir);
    await server?.stop();
    ws.dispose();
  });

  it('passes every test of the suite', async () => {
    const t0 = Date.now();
    const suite = await buildSuite();
    server = await startCodeServer({ folder: ws.folder });
    const tServer = Date.now() - t0;
    browser = await launchChromium();
    const resultsFile = path.join(ws.base, 'vscode-suite-results.json');
    let exitCode: number | undefined;
    const logs: string[] = [];
    const page = await openWorkbench(browser, workbenchUrl({ origin: server.origin, port: server.port, folder: ws.folder, extensionPath: ROOT, testsPath: suite }), {
      exit: (code) => (exitCode = code),
      log: (s) => logs.push(s),
    });
    const until = Date.now() + 280_000;
    while (!existsSync(resultsFile) && Date.now() < until) await page.waitForTimeout(250);
    assert.ok(existsSync(resultsFile), `the suite wrote no results (exit ${exitCode}).\n${logs.join('\n')}\n${server.log().slice(-4000)}`);
    const results = JSON.parse(readFileSync(resultsFile, 'utf8')) as SuiteResults;
    console.log(logs.join('\n'));
    for (const r of results.results) console.log(`      ${r.state === 'passed' ? '✔' : '✘'} ${r.title}${r.durationMs !== undefined ? ` (${r.durationMs} ms)` : ''}${r.error ? `\n${r.error}` : ''}`);
    console.log(`      code-server up in ${tServer} ms; suite ${results.durationMs} ms; whole cycle ${Date.now() - t0} ms`);
    assert.equal(results.failures, 0, results.results.filter((r) => r.state === 'failed').map((r) => `${r.title}: ${r.error}`).join('\n'));
    assert.ok(results.results.length >= 5);
  });
});

/** Keeps the extension's own log (its LogOutputChannel) from the server's temp folder, for a failed or slow run. */
function keepLogs(dir: string): void {
  const out = path.join(ROOT, 'test-results', 'code-server-logs');
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.includes('Ticket Runner')) continue;
    mkdirSync(out, { recursive: true });
    cpSync(path.join(entry.parentPath, entry.name), path.join(out, entry.name));
  }
}
