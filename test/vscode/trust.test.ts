import { strict as assert } from 'node:assert';
import { cpSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import { openWindow, pickItem, ROOT, runFromPalette, runWebview, tempWorkspace } from './workbench';

/**
 * Workspace trust, in a real VS Code: the folder opens in Restricted Mode (trust on, no
 * prompt). "Run Ticket" starts no run and says why; a past run can still be opened.
 */
describe('an untrusted workspace in code-server', function () {
  this.timeout(300_000);
  let page: Page;
  let close: (() => Promise<void>) | undefined;
  const ws = tempWorkspace();
  const runsDir = path.join(ws.folder, '.ticket-runner', 'runs');
  before(async () => {
    // A past run to view: BLOG-1's log as the core recorded it (the webview tests' fixture).
    const fixture = path.join(ROOT, 'test', 'webview', 'fixtures', 'BLOG-1');
    const runId = (JSON.parse(readFileSync(path.join(fixture, 'events.jsonl'), 'utf8').split('\n')[0]!) as { runId: string }).runId;
    cpSync(fixture, path.join(runsDir, runId), { recursive: true });
    ({ page, close } = await openWindow(ws, { untrusted: true }));
  });
  after(async () => close?.());

  it('starts no run, with a message that says why and how to trust the workspace', async () => {
    const before = readdirSync(runsDir).length;
    await runFromPalette(page, 'Ticket Runner: Run Ticket');
    const toast = page.locator('.notifications-toasts .notification-list-item', { hasText: 'starts no run in an untrusted workspace' });
    await toast.first().waitFor({ timeout: 60_000 });
    assert.match((await toast.first().textContent()) ?? '', /Manage Workspace Trust/);
    assert.equal(readdirSync(runsDir).length, before, 'no run folder was created');
    assert.ok(!existsSync(path.join(ws.folder, 'test', 'ticket')), 'no test was rendered');
  });

  it('still opens a past run', async () => {
    await runFromPalette(page, 'Ticket Runner: Open Run');
    await pickItem(page, 'BLOG-1');
    const webview = runWebview(page);
    await webview.locator('.attempt[data-attempt="2"]').waitFor({ timeout: 60_000 });
    assert.equal(await webview.locator('#accept').count(), 0, 'nothing to decide, and no decision in Restricted Mode');
  });
});
