import { strict as assert } from 'node:assert';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { CANARIES } from './canaries';
import { startCodeServer, workbenchUrl, type CodeServer } from './codeServer';
import { buildSuite, launchChromium, openWorkbench, ROOT, tempWorkspace } from './workbench';

interface SuiteResults {
  failures: number;
  durationMs: number;
  results: { title: string; state: string; durationMs?: number; error?: string }[];
}

/**
 * Drives the in-host suites (test/vscode/suite) in code-server: the workbench URL's payload
 * loads this repo as the development extension and a bundled suite as its tests. A suite
 * writes its results beside the workspace folder. While it runs, the driver reads the
 * sandbox line of every run webview the suite opens (only a browser can see a webview's page).
 */
describe("integration suite in code-server's extension host", function () {
  this.timeout(600_000);
  const servers: CodeServer[] = [];
  const workspaces: ReturnType<typeof tempWorkspace>[] = [];
  let browser: Browser | undefined;

  after(async () => {
    await browser?.close();
    for (const [i, server] of servers.entries()) {
      keepLogs(server.dir, `host${i + 1}`);
      await server.stop();
    }
    for (const ws of workspaces) ws.dispose();
  });

  async function driveSuite(o: {
    entry: string;
    outfile: string;
    env: Record<string, string>;
    screenshot: string;
    minTests: number;
  }): Promise<Set<string>> {
    const t0 = Date.now();
    const ws = tempWorkspace();
    workspaces.push(ws);
    const suite = await buildSuite(o.entry, o.outfile);
    const server = await startCodeServer({ folder: ws.folder, env: o.env });
    servers.push(server);
    const tServer = Date.now() - t0;
    browser ??= await launchChromium();
    const resultsFile = path.join(ws.base, 'vscode-suite-results.json');
    let exitCode: number | undefined;
    const logs: string[] = [];
    const page = await openWorkbench(
      browser,
      workbenchUrl({ origin: server.origin, port: server.port, folder: ws.folder, extensionPath: ROOT, testsPath: suite }),
      {
        exit: (code) => (exitCode = code),
        log: (s) => logs.push(s),
      },
    );
    const chips = new Set<string>();
    mkdirSync(path.join(ROOT, 'test-results'), { recursive: true });
    // About 100 s on a quiet machine; the margin is for a loaded one, where a timeout would say nothing about the product.
    const until = Date.now() + 560_000;
    while (!existsSync(resultsFile) && Date.now() < until) {
      if (await sandboxLines(page, chips)) await page.screenshot({ path: path.join(ROOT, 'test-results', o.screenshot) });
      await page.waitForTimeout(250);
    }
    assert.ok(existsSync(resultsFile), `the suite wrote no results (exit ${exitCode}).\n${logs.join('\n')}\n${server.log().slice(-4000)}`);
    // A page sent its state just before the suite ended may render a moment after: keep looking a little while.
    const grace = Date.now() + 20_000;
    while (chips.size === 0 && Date.now() < grace) {
      if (await sandboxLines(page, chips)) await page.screenshot({ path: path.join(ROOT, 'test-results', o.screenshot) });
      await page.waitForTimeout(250);
    }
    const results = JSON.parse(readFileSync(resultsFile, 'utf8')) as SuiteResults;
    console.log(logs.join('\n'));
    for (const r of results.results)
      console.log(
        `      ${r.state === 'passed' ? '✔' : '✘'} ${r.title}${r.durationMs !== undefined ? ` (${r.durationMs} ms)` : ''}${r.error ? `\n${r.error}` : ''}`,
      );
    console.log(
      `      code-server up in ${tServer} ms; suite ${results.durationMs} ms; whole cycle ${Date.now() - t0} ms; the webviews said: ${[...chips].join(' | ') || 'nothing'}`,
    );
    assert.equal(
      results.failures,
      0,
      results.results
        .filter((r) => r.state === 'failed')
        .map((r) => `${r.title}: ${r.error}`)
        .join('\n'),
    );
    assert.ok(results.results.length >= o.minTests);
    return chips;
  }

  it('passes every test of the suite, in a host with the OS sandbox and canary secrets in its environment', async () => {
    const chips = await driveSuite({
      entry: path.join(ROOT, 'test', 'vscode', 'suite', 'index.ts'),
      outfile: path.join(ROOT, 'out', 'vscode-suite', 'index.js'),
      env: CANARIES,
      screenshot: 'webview-sandbox-on.png',
      minTests: 5,
    });
    assert.deepEqual([...chips], ['sandbox: on (bubblewrap)'], 'every run webview said the sandbox was on');
  });

  it('passes the no-sandbox suite, in a host whose PATH has no bwrap (the suite sets it)', async () => {
    const chips = await driveSuite({
      entry: path.join(ROOT, 'test', 'vscode', 'suite', 'noSandboxIndex.ts'),
      outfile: path.join(ROOT, 'out', 'vscode-suite', 'noSandbox.js'),
      env: {},
      screenshot: 'webview-sandbox-off.png',
      minTests: 2,
    });
    assert.equal(chips.size, 1, [...chips].join(' | '));
    assert.match([...chips][0]!, /^sandbox: off \(.*bubblewrap \(bwrap\) not installed.*\)$/);
  });
});

/**
 * Adds the sandbox line (#sandbox) of every run webview open now to `seen`; true when one
 * was new. Webviews nest their page in frames the workbench makes and drops at will.
 */
async function sandboxLines(page: Page, seen: Set<string>): Promise<boolean> {
  let fresh = false;
  for (const frame of page.frames()) {
    const text = await frame.evaluate(() => document.getElementById('sandbox')?.textContent ?? null).catch(() => null);
    if (text && !seen.has(text)) {
      seen.add(text);
      fresh = true;
    }
  }
  return fresh;
}

/** Keeps the extension's own log (its LogOutputChannel) from the server's temp folder, for a failed or slow run. */
function keepLogs(dir: string, host: string): void {
  const out = path.join(ROOT, 'test-results', 'code-server-logs');
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.includes('Ticket Runner')) continue;
    mkdirSync(out, { recursive: true });
    cpSync(path.join(entry.parentPath, entry.name), path.join(out, `${host}-${entry.name}`));
  }
}
