import { strict as assert } from 'node:assert';
import { mkdirSync } from 'node:fs';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import { parseWebviewMessage } from '../../src/shared/protocol';
import { docScreenshot } from '../support/docScreenshot';
import { openWebview, posted, recordedRunState, REPO, send, sharedBrowser } from './harness';
import { applyTheme } from './themes';

/**
 * A correction request judged before the decision: which file Accept changes, the change as a
 * diff with a way into VS Code's diff editor, a corrected test plan as the test code it renders
 * to, and a rejection that the keyboard alone can write, cancel and send.
 */
describe('webview app: proposals', function () {
  this.timeout(90_000);
  const shared = sharedBrowser();

  const postedOf = async (page: Page, type: string) =>
    (await posted(page)).filter((m) => (m as { type: string }).type === type) as Record<string, unknown>[];
  /** The element that has the keyboard, through the custom elements' shadow roots. */
  const focused = (page: Page) =>
    page.evaluate(() => {
      let el: Element | null = document.activeElement;
      const chain: string[] = [];
      while (el) {
        chain.push(el.id || el.tagName.toLowerCase());
        el = el.shadowRoot?.activeElement ?? null;
      }
      return chain;
    });

  it('says which file Accept changes, and opens the ticket diff in the diff editor', async () => {
    const { page, problems } = await openWebview(shared.browser, shared.origin);
    const msg = await recordedRunState('BLOG-3');
    await send(page, msg);
    const box = page.locator('.correction-box[data-status="pending"]');
    await box.waitFor();
    assert.match(
      (await box.locator('.accept-changes').textContent()) ?? '',
      /Accept rewrites \.tickets\/BLOG-3\.ticket\.json: the ticket\./,
    );
    // The diff editor's button comes before the inline diff.
    const button = box.locator('.preview vscode-button.open-diff');
    assert.equal(await button.count(), 1);
    await button.click();
    const [sent] = await postedOf(page, 'proposal/diff');
    assert.ok(sent, 'posted proposal/diff');
    const parsed = parseWebviewMessage(sent);
    assert.ok(parsed.ok, parsed.ok ? '' : parsed.error);
    assert.equal(sent.requestId, msg.state.corrections[0]!.request.id);
    assert.equal(sent.test, undefined, 'the ticket, not a rendered test');
    // Opening a diff is not a decision: Accept stays on while the host opens it.
    assert.equal(await page.locator('#accept').getAttribute('disabled'), null);
    assert.deepEqual(problems, []);
    await page.close();
  });

  it("the README's picture of a correction request: what is wrong, the evidence, which file Accept changes, and the diff", async () => {
    const { page, problems } = await openWebview(shared.browser, shared.origin);
    await page.setViewportSize({ width: 820, height: 600 });
    await applyTheme(page, 'dark');
    await send(page, await recordedRunState('BLOG-3'));
    const box = page.locator('.correction-box[data-status="pending"]');
    await box.waitFor();
    assert.ok((await box.locator('.preview .add').count()) > 0, 'the diff shows what Accept adds');
    await page.locator('#accept').waitFor();
    await docScreenshot(box, 'run-view-correction');
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('shows a corrected test plan as the rendered test code before and after, not as JSON', async () => {
    const { page, problems } = await openWebview(shared.browser, shared.origin);
    const msg = await recordedRunState('BLOG-2');
    const files = msg.proposalTests?.[0]?.files ?? [];
    assert.ok(files.length > 0, 'the recorded test-plan proposal changes a rendered test');
    await send(page, msg);
    const box = page.locator('.correction-box[data-status="pending"]');
    await box.waitFor();
    assert.match((await box.locator('.accept-changes').textContent()) ?? '', /its test plan, and the tests are rendered again/);
    const rendered = box.locator('.diff.rendered');
    assert.equal(await rendered.count(), files.length);
    const text = (await rendered.first().locator('pre').textContent()) ?? '';
    // Code, as the test runner will read it: assertions, not the plan's JSON.
    assert.doesNotMatch(text, /"kind"\s*:|"not"\s*:\s*false/);
    assert.match(text, /assert\.|expect\(/);
    assert.ok((await rendered.first().locator('.add').count()) > 0, 'what Accept adds is marked');
    assert.doesNotMatch((await box.textContent()) ?? '', /\{"kind":/, 'no expectation as JSON anywhere in the box');
    await rendered.first().locator('vscode-button.open-diff').click();
    const sent = await postedOf(page, 'proposal/diff');
    assert.equal(sent[sent.length - 1]!.test, files[0]!.path);
    mkdirSync(path.join(REPO, 'test-results'), { recursive: true });
    await page.screenshot({ path: path.join(REPO, 'test-results', 'webview-proposal-test-plan.png'), fullPage: true });
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('a reject done by keyboard only: Enter puts the focus in the reason box, Accept is off, Escape cancels, Enter sends', async () => {
    const { page, problems } = await openWebview(shared.browser, shared.origin);
    const msg = await recordedRunState('BLOG-3');
    await send(page, msg);
    await page.locator('#reject').waitFor();
    // From the top of the page, Tab until Reject… has the keyboard: every stop on the way is reachable.
    let stops = 0;
    while ((await focused(page))[0] !== 'reject') {
      await page.keyboard.press('Tab');
      assert.ok(++stops < 80, `Reject… is reachable by Tab (focus went ${(await focused(page)).join(' > ')})`);
    }
    await page.keyboard.press('Enter');
    await page.locator('#reject-reason').waitFor();
    assert.equal((await focused(page))[0], 'reject-reason', 'the focus moved into the reason box');
    assert.equal(await page.locator('#accept').getAttribute('disabled'), '', 'Accept is off while rejecting');
    await page.keyboard.type('first thought');
    await page.keyboard.press('Escape');
    await page.waitForFunction(() => document.querySelector('#reject-form') === null);
    await page.waitForFunction(() => document.activeElement?.id === 'reject', null, { timeout: 3_000 }).catch(() => undefined);
    assert.equal((await focused(page))[0], 'reject', 'Escape gives the focus back to Reject…');
    assert.equal(await page.locator('#accept').getAttribute('disabled'), null, 'Accept is on again');
    assert.equal((await postedOf(page, 'correction/reject')).length, 0, 'Escape sent nothing');
    await page.keyboard.press('Enter');
    await page.locator('#reject-reason').waitFor();
    assert.equal((await focused(page))[0], 'reject-reason');
    await page.keyboard.press('Control+A');
    await page.keyboard.type('The createdAt field is not part of this ticket.');
    // To the confirm button, and send.
    await page.keyboard.press('Tab');
    assert.equal((await focused(page))[0], 'reject-confirm');
    await page.keyboard.press('Enter');
    const sent = await postedOf(page, 'correction/reject');
    assert.equal(sent.length, 1);
    assert.equal(sent[0]!.reason, 'The createdAt field is not part of this ticket.');
    assert.ok(parseWebviewMessage(sent[0]).ok);
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('the Cancel button of the reject form cancels it as Escape does', async () => {
    const { page } = await openWebview(shared.browser, shared.origin);
    await send(page, await recordedRunState('BLOG-3'));
    await page.locator('#reject').click();
    await page.locator('#reject-cancel').click();
    await page.waitForFunction(() => document.querySelector('#reject-form') === null);
    assert.equal((await postedOf(page, 'correction/reject')).length, 0);
    await page.close();
  });
});
