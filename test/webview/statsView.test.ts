import { strict as assert } from 'node:assert';
import { mkdirSync } from 'node:fs';
import * as path from 'node:path';
import { statsMessage } from '../../src/vscode/statsFigures';
import { openWebview, posted, recordedRunState, REPO, send, sharedBrowser } from './harness';

/**
 * The Run Statistics panel's app in headless Chromium under its real CSP, fed the figures the
 * extension host builds from the recorded run logs (test/webview/fixtures).
 */
describe('Run Statistics panel (headless Chromium, recorded run logs)', function () {
  this.timeout(60_000);
  const chromium = sharedBrowser();

  it('posts ready, then shows the figures in words and the table by ticket; Count again asks the host', async () => {
    const { page, problems } = await openWebview(chromium.browser, chromium.origin, undefined, '/stats.html');
    await page.waitForFunction(() => (window as unknown as { __posted: unknown[] }).__posted.length > 0);
    assert.deepEqual(await posted(page), [{ type: 'ready' }]);
    const states = [(await recordedRunState('BLOG-1')).state, (await recordedRunState('BLOG-3')).state];
    const msg = statsMessage(states);
    await send(page, msg);
    await page.locator('#by-ticket').waitFor();
    const sections = page.locator('vscode-collapsible.stats-section');
    assert.equal(await sections.count(), msg.sections.length + 1);
    assert.equal(await sections.first().getAttribute('title'), 'Runs');
    const text = (await page.locator('#app').innerText()).replace(/\s+/g, ' ');
    assert.match(text, /2 runs of 2 tickets; 50% passed \(1 of the 2 that stopped\)/);
    assert.match(text, /to you: change the ticket: 1/);
    assert.match(text, /waiting for your decision: 1/);
    assert.deepEqual(await page.locator('vscode-table-row').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-ticket'))), [
      'BLOG-1',
      'BLOG-3',
    ]);
    mkdirSync(path.join(REPO, 'test-results'), { recursive: true });
    await page.screenshot({ path: path.join(REPO, 'test-results', 'stats-panel.png'), fullPage: true });
    await page.locator('#refresh').click();
    assert.deepEqual((await posted(page)).at(-1), { type: 'stats/refresh' });
    assert.deepEqual(problems, [], 'no console errors or CSP violations');
    await page.close();
  });

  it('with no run, says how to start one; an invalid message is refused and the refusal shown', async () => {
    const { page } = await openWebview(chromium.browser, chromium.origin, undefined, '/stats.html');
    await page.waitForFunction(() => (window as unknown as { __posted: unknown[] }).__posted.length > 0);
    await send(page, statsMessage([]));
    assert.match((await page.locator('#empty').textContent()) ?? '', /^No runs yet\. Start one with: Ticket Runner: Run Ticket$/);
    await send(page, { type: 'stats/figures', runs: -1, sections: 'everything passed' });
    assert.match((await page.locator('[role=alert]').textContent()) ?? '', /^Refused a message from the editor: /);
    assert.equal(await page.locator('#by-ticket').count(), 0, 'nothing of the invalid message is shown');
    await page.close();
  });
});
