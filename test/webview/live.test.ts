import { strict as assert } from 'node:assert';
import type { Page } from 'playwright-core';
import { parseWebviewMessage } from '../../src/shared/protocol';
import { docScreenshot } from '../support/docScreenshot';
import { openWebview, posted, recordedRunState, savedState, send, sharedBrowser } from './harness';
import { applyTheme } from './themes';

/**
 * A live run in the webview: the host sends a new run/state on every event, and the page
 * updates in place. The hostile case is the one a whole-page rebuild fails: the user has
 * focused a control and scrolled, and events keep coming.
 */
describe('webview app: live progress', function () {
  this.timeout(90_000);
  const shared = sharedBrowser();

  const TOTAL = 26; // events in the BLOG-1 recording: a failed attempt, the Debugger, a passing attempt

  const stageLabel = (page: Page) => page.locator('#stage-label').textContent();

  it('shows each event as it arrives, with the current stage and a progress ring, and ends without them', async () => {
    const { page, problems } = await openWebview(shared.browser, shared.origin);
    const seen = new Set<string>();
    for (let upTo = 0; upTo < TOTAL; upTo++) {
      const msg = await recordedRunState('BLOG-1', { upTo, canCancel: true });
      await send(page, msg);
      await page.waitForFunction((n) => document.querySelectorAll('#timeline li').length === n, msg.timeline.length);
      if (msg.stage) {
        assert.equal(await stageLabel(page), msg.stage.label, `the stage after event ${upTo}`);
        assert.equal(await page.locator('#stage').getAttribute('data-step'), msg.stage.step);
        if (msg.stage.step !== 'waiting') assert.equal(await page.locator('#stage vscode-progress-ring').count(), 1);
        seen.add(msg.stage.label);
      }
    }
    // The steps a user watches go by: the checks before the run, the Coder's attempts, the checks, the tests, the Debugger, the gates.
    for (const label of [
      'Checking the project before the run (types and its own tests)',
      'Rendering the tests',
      'Attempt 1: checking the change (syntax, types, lint)',
      "Attempt 1: running the ticket's tests",
      'Attempt 1: the Debugger is diagnosing',
      'Attempt 2: the Coder is writing',
      "Attempt 2: running the ticket's tests",
      'Gates: Type check of the whole project',
    ]) {
      assert.ok(seen.has(label), `saw "${label}" among ${[...seen].join(' | ')}`);
    }
    // Finished: no stage, no Cancel; the outcome says how it ended.
    assert.equal(await page.locator('#stage').count(), 0);
    assert.equal(await page.locator('#cancel-run').count(), 0);
    assert.equal(await page.locator('#outcome').count(), 1);
    assert.deepEqual(problems, []);
    await page.close();
  });

  it("the README's picture of a run in progress: the stage with its ring, Cancel, and the events so far", async () => {
    const { page, problems } = await openWebview(shared.browser, shared.origin);
    await page.setViewportSize({ width: 820, height: 600 });
    await applyTheme(page, 'dark');
    // The second attempt, after the Debugger's diagnosis of the first: live, not finished.
    const msg = await recordedRunState('BLOG-1', { upTo: 20, canCancel: true });
    assert.ok(msg.stage, 'the run is still going at this event');
    await send(page, msg);
    await page.waitForFunction((n) => document.querySelectorAll('#timeline li').length === n, msg.timeline.length);
    await page.locator('#stage vscode-progress-ring').waitFor();
    await page.locator('#cancel-run').waitFor();
    assert.equal(await page.locator('#outcome').count(), 0, 'no outcome yet: the picture is of a run in progress');
    await docScreenshot(page.locator('body'), 'run-view-live');
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('keeps focus, scroll and the nodes themselves while events arrive (no whole-page rebuild)', async () => {
    const { page, problems } = await openWebview(shared.browser, shared.origin);
    await page.setViewportSize({ width: 1000, height: 420 });
    await send(page, await recordedRunState('BLOG-1', { upTo: 14, canCancel: true }));
    await page.locator('#timeline li').nth(3).waitFor();
    // Focus a control down the page (a quote's link in the diagnosis), then scroll elsewhere.
    const link = page.locator('.diagnosis a.file-link').first();
    await link.focus();
    await page.evaluate(() => {
      (document.activeElement as HTMLElement & { __mark?: string }).__mark = 'focused';
      (document.querySelector('#header') as HTMLElement & { __mark?: string }).__mark = 'header';
      window.scrollTo(0, 150);
    });
    const scrollBefore = await page.evaluate(() => window.scrollY);
    assert.ok(scrollBefore > 100, 'the page is taller than the viewport');
    const topBefore = await page.evaluate(() => document.activeElement!.getBoundingClientRect().top);
    for (let upTo = 15; upTo < TOTAL; upTo++) {
      const msg = await recordedRunState('BLOG-1', { upTo, canCancel: upTo < TOTAL - 1 });
      await send(page, msg);
      await page.waitForFunction((n) => document.querySelectorAll('#timeline li').length === n, msg.timeline.length);
      const kept = await page.evaluate(() => ({
        focus: (document.activeElement as HTMLElement & { __mark?: string }).__mark,
        header: (document.querySelector('#header') as HTMLElement & { __mark?: string }).__mark,
        scroll: window.scrollY,
        top: document.activeElement!.getBoundingClientRect().top,
      }));
      assert.equal(kept.focus, 'focused', `focus kept after event ${upTo}`);
      assert.equal(kept.header, 'header', `the header is the same node after event ${upTo}`);
      // What the user looked at stays where it was on screen. (When the stage line above it goes at
      // the end, the browser's scroll anchoring moves the scroll by that much to keep it there.)
      assert.ok(kept.scroll > 100, `not scrolled back to the top after event ${upTo}`);
      assert.ok(
        Math.abs(kept.top - topBefore) <= 1,
        `the focused link stays put on screen after event ${upTo}: ${topBefore} -> ${kept.top}`,
      );
    }
    // The kept link still works: its handler is the latest render's.
    await page.keyboard.press('Enter');
    assert.ok((await posted(page)).some((m) => (m as { type: string }).type === 'file/open'));
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('Cancel posts a valid run/cancel for this run, and shows it is cancelling until the host answers', async () => {
    const { page, problems } = await openWebview(shared.browser, shared.origin);
    const msg = await recordedRunState('BLOG-1', { upTo: 10, canCancel: true });
    await send(page, msg);
    await page.locator('#cancel-run').waitFor();
    await page.locator('#cancel-run').focus();
    await page.keyboard.press('Enter');
    const sent = (await posted(page)).filter((m) => (m as { type: string }).type === 'run/cancel');
    assert.equal(sent.length, 1);
    const parsed = parseWebviewMessage(sent[0]);
    assert.ok(parsed.ok, parsed.ok ? '' : parsed.error);
    assert.equal((sent[0] as { runId: string }).runId, msg.state.runId);
    assert.match((await page.locator('#cancel-run').textContent()) ?? '', /Cancelling/);
    assert.equal(await page.locator('#cancel-run').getAttribute('disabled'), '');
    await send(page, { type: 'request/done', id: (sent[0] as { id: string }).id, ok: true });
    await page.waitForFunction(() => !/Cancelling/.test(document.querySelector('#cancel-run')?.textContent ?? ''));
    // A run this window does not drive offers no Cancel.
    await send(page, await recordedRunState('BLOG-1', { upTo: 11, canCancel: false }));
    await page.waitForFunction(() => document.querySelector('#cancel-run') === null);
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('after being hidden and shown, shows the last run state at once, before the host answers ready', async () => {
    const first = await openWebview(shared.browser, shared.origin);
    const msg = await recordedRunState('BLOG-1', { upTo: 12, canCancel: true });
    await send(first.page, msg);
    await first.page.locator('#stage').waitFor();
    const saved = await savedState(first.page);
    await first.page.close();
    const { page, problems } = await openWebview(shared.browser, shared.origin, saved);
    // Nothing is sent by the host here: the page restores what it saved.
    await page.locator('#stage').waitFor({ timeout: 5_000 });
    assert.equal(await stageLabel(page), msg.stage!.label);
    assert.equal(await page.locator('#timeline li').count(), msg.timeline.length);
    assert.deepEqual((await posted(page))[0], { type: 'ready' });
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('a saved state that is not a valid run state is ignored, not shown', async () => {
    const { page, problems } = await openWebview(shared.browser, shared.origin, {
      runId: 'x',
      last: { type: 'run/state', state: { runId: 'x' } },
    });
    await page.locator('#waiting').waitFor();
    assert.equal(await page.locator('#header').count(), 0);
    assert.deepEqual(problems, []);
    await page.close();
  });
});
