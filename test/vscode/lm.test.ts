import { strict as assert } from 'node:assert';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startCodeServer, workbenchUrl, type CodeServer } from './codeServer';
import { buildFakeLm, buildSuite, launchChromium, openWorkbench, ROOT, tempWorkspace } from './workbench';

/**
 * The vscode.lm provider in code-server, against scripted chat models that a test extension
 * (test/vscode/fakeLm) registers through the Language Model API: the in-host suite
 * (suite/lm.test.ts) runs tickets with ticketRunner.model set to vscode-lm and reads the rungs
 * and the provider's receipts from the run log.
 */
describe('vscode.lm in code-server, against a fake chat provider', function () {
  this.timeout(420_000);
  let server: CodeServer | undefined;
  let browser: Browser | undefined;
  const ws = tempWorkspace();

  after(async () => {
    await browser?.close();
    await server?.stop();
    ws.dispose();
  });

  it('passes the suite: rungs 1 and 3 fire through vscode.lm and their receipts are in the log', async () => {
    const fakeLm = await buildFakeLm(path.join(ws.base, 'ticket-runner-tests.fake-lm-0.0.1'));
    const suite = await buildSuite(
      path.join(ROOT, 'test', 'vscode', 'suite', 'lmIndex.ts'),
      path.join(ROOT, 'out', 'vscode-suite', 'lm.js'),
    );
    server = await startCodeServer({ folder: ws.folder, extensions: [fakeLm] });
    browser = await launchChromium();
    const results = path.join(ws.base, 'vscode-suite-results.json');
    const logs: string[] = [];
    const page = await openWorkbench(
      browser,
      workbenchUrl({
        origin: server.origin,
        port: server.port,
        folder: ws.folder,
        extensionPath: ROOT,
        testsPath: suite,
        proposedApi: true,
      }),
      { log: (s) => logs.push(s) },
    );
    const until = Date.now() + 400_000;
    let clicked = false;
    while (!existsSync(results) && Date.now() < until) {
      // The suite opens the run's webview and waits for the record this click opens.
      if (!clicked) clicked = await clickFirstPromptControl(page);
      await page.waitForTimeout(250);
    }
    mkdirSync(path.join(ROOT, 'test-results'), { recursive: true });
    await page.screenshot({ path: path.join(ROOT, 'test-results', 'vscode-lm.png') });
    assert.ok(existsSync(results), `the suite wrote no results.\n${logs.join('\n')}\n${server.log().slice(-4000)}`);
    const { failures, results: tests } = JSON.parse(readFileSync(results, 'utf8')) as {
      failures: number;
      results: { title: string; state: string; durationMs?: number; error?: string }[];
    };
    console.log(logs.join('\n'));
    for (const t of tests)
      console.log(
        `      ${t.state === 'passed' ? '✔' : '✘'} ${t.title}${t.durationMs !== undefined ? ` (${t.durationMs} ms)` : ''}${t.error ? `\n${t.error}` : ''}`,
      );
    assert.equal(
      failures,
      0,
      tests
        .filter((t) => t.state === 'failed')
        .map((t) => `${t.title}: ${t.error}`)
        .join('\n'),
    );
    assert.equal(tests.length, 5);
    assert.ok(clicked, 'the run webview showed a "Prompt and answer" control, and the driver clicked it');
  });
});

/** Clicks the first model call's "Prompt and answer" in whichever frame holds the run webview; true once clicked. */
async function clickFirstPromptControl(page: Page): Promise<boolean> {
  for (const frame of page.frames()) {
    const link = frame.locator('.prompt-link[data-call="0"]');
    try {
      if ((await link.count()) === 0) continue;
      await link.click({ timeout: 2000 });
      return true;
    } catch {
      // The workbench dropped the frame meanwhile: look again on the next round.
    }
  }
  return false;
}
