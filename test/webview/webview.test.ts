import { strict as assert } from 'node:assert';
import { mkdirSync } from 'node:fs';
import * as path from 'node:path';
import { parseWebviewMessage } from '../../src/shared/protocol';
import { openWebview, posted, recordedRunState, REPO, savedState, send, sharedBrowser } from './harness';

/**
 * The webview app on its own, in headless Chromium, under its real CSP, fed with run logs
 * recorded from the core with the scripted model (test/webview/fixtures).
 */
describe('webview app (headless Chromium, recorded run logs)', function () {
  this.timeout(60_000);
  const shared = sharedBrowser();

  it('posts ready before anything else, and renders nothing of a run until the host sends it', async () => {
    const { page, problems } = await openWebview(shared.browser, shared.origin);
    await page.waitForFunction(() => (window as unknown as { __posted: unknown[] }).__posted.length > 0);
    assert.deepEqual((await posted(page))[0], { type: 'ready' });
    assert.equal(await page.locator('#correction').count(), 0);
    assert.deepEqual(problems, [], 'no console errors or CSP violations');
    await page.close();
  });

  it('renders the timeline, the diagnosis with its quotes linked to file and line, the route, and the correction panel', async () => {
    const { page, problems } = await openWebview(shared.browser, shared.origin);
    const msg = await recordedRunState('BLOG-3');
    await send(page, msg);
    await page.locator('#correction').waitFor();
    assert.equal(await page.locator('#timeline li').count(), msg.timeline.length);
    assert.ok(await page.locator('#timeline li[data-type="correction.requested"]').count());
    assert.equal(await page.locator('#scripted').textContent(), 'Recorded sample (not a live model)');
    const diagnosis = msg.state.attempts[0]!.diagnosis!;
    const quotes = page.locator('.diagnosis .quote');
    assert.equal(await quotes.count(), diagnosis.evidence.length);
    assert.equal(await quotes.first().locator('q').textContent(), diagnosis.evidence[0]!.quote);
    const link = quotes.locator('a.file-link').first();
    const loc = msg.quotes[0]!;
    assert.equal(await link.getAttribute('data-path'), loc.path);
    assert.equal(await link.getAttribute('data-line'), String(loc.line));
    assert.equal(await page.locator('.route').getAttribute('data-route'), msg.state.attempts[0]!.route!.route);
    assert.equal(await page.locator('.route').getAttribute('data-verdict'), msg.state.attempts[0]!.route!.verdict);
    const box = page.locator('.correction-box[data-status="pending"]');
    assert.equal(await box.getAttribute('data-request-id'), msg.state.corrections[0]!.request.id);
    // The whole change Accept writes is on screen before the decision: the ticket's diff.
    const preview = box.locator('.diff.preview');
    assert.equal(await preview.getAttribute('data-path'), '.tickets/BLOG-3.ticket.json');
    assert.match((await preview.locator('.diff-title').textContent()) ?? '', /^The change to \.tickets\/BLOG-3\.ticket\.json/);
    // Which file Accept rewrites is said once, above the diff.
    assert.equal(await box.locator('.accept-changes').count(), 1);
    assert.doesNotMatch((await preview.locator('.diff-title').textContent()) ?? '', /Accept rewrites/);
    assert.ok(
      (await preview.locator('.add').count()) > 0 && (await preview.locator('.del').count()) > 0,
      'both sides of the edit are shown',
    );
    assert.match((await preview.locator('.add').allTextContents()).join('\n'), /createdAt/);
    assert.ok(await page.locator('#accept').isVisible());
    assert.ok(await page.locator('#reject').isVisible());
    // A quote link opens the file at its line.
    await link.click();
    const opened = (await posted(page)).find((m) => (m as { type: string }).type === 'file/open');
    assert.deepEqual(opened, { type: 'file/open', path: loc.path, line: loc.line });
    mkdirSync(path.join(REPO, 'test-results'), { recursive: true });
    await page.screenshot({ path: path.join(REPO, 'test-results', 'webview-app.png'), fullPage: true });
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('Accept posts a valid correction/accept request with an id', async () => {
    const { page } = await openWebview(shared.browser, shared.origin);
    const msg = await recordedRunState('BLOG-3');
    await send(page, msg);
    await page.locator('#accept').click();
    const sent = (await posted(page)).filter((m) => (m as { type: string }).type === 'correction/accept');
    assert.equal(sent.length, 1);
    const parsed = parseWebviewMessage(sent[0]);
    assert.ok(parsed.ok, parsed.ok ? '' : parsed.error);
    assert.deepEqual(
      { ...(sent[0] as object), id: 'x' },
      { type: 'correction/accept', id: 'x', runId: msg.state.runId, requestId: msg.state.corrections[0]!.request.id },
    );
    // While the request is out, the buttons are disabled; the host's answer for the same id re-enables them.
    await page.locator('#busy').waitFor();
    await send(page, { type: 'request/done', id: (sent[0] as { id: string }).id, ok: false, error: 'the ticket changed on disk' });
    await page.locator('#error').waitFor();
    assert.match((await page.locator('#error').textContent()) ?? '', /Accept failed: the ticket changed on disk/);
    assert.equal(await page.locator('#busy').count(), 0);
    await page.close();
  });

  it('Reject asks for a reason, and posts it', async () => {
    const { page } = await openWebview(shared.browser, shared.origin);
    const msg = await recordedRunState('BLOG-3');
    await send(page, msg);
    await page.locator('#reject').click();
    await page.locator('#reject-reason').waitFor();
    assert.equal(await page.locator('#reject-confirm').getAttribute('disabled'), '', 'no reason, no reject');
    await page.locator('#reject-reason textarea').fill('The ticket is right; the summary must keep the old format.');
    await page.locator('#reject-confirm:not([disabled])').click();
    const sent = (await posted(page)).filter((m) => (m as { type: string }).type === 'correction/reject');
    assert.equal(sent.length, 1);
    assert.ok(parseWebviewMessage(sent[0]).ok);
    assert.equal((sent[0] as { reason: string }).reason, 'The ticket is right; the summary must keep the old format.');
    await page.close();
  });

  it('refuses an invalid inbound message with a clear error, and tells the host', async () => {
    const { page } = await openWebview(shared.browser, shared.origin);
    const msg = await recordedRunState('BLOG-3');
    const bad = { ...msg, state: { ...msg.state, status: 'exploded' } };
    await send(page, bad);
    await page.locator('#error').waitFor();
    const text = (await page.locator('#error').textContent()) ?? '';
    assert.match(text, /Refused a message from the extension: invalid message "run\/state": state\.status/);
    assert.equal(await page.locator('#correction').count(), 0, 'nothing of the invalid message is shown');
    const told = (await posted(page)).find((m) => (m as { type: string }).type === 'protocol/error');
    assert.ok(told && parseWebviewMessage(told).ok);
    await send(page, { type: 'no/such' });
    await page.waitForFunction(() => document.querySelector('#error')?.textContent?.includes('"no/such"'));
    await page.close();
  });

  it('shows the diff between attempts', async () => {
    const { page, problems } = await openWebview(shared.browser, shared.origin);
    const msg = await recordedRunState('BLOG-1');
    assert.ok(msg.state.attempts.length >= 2, 'the BLOG-1 recording has two attempts');
    await send(page, msg);
    await page.locator('.attempt[data-attempt="2"] .diff').first().waitFor();
    const diff = page.locator('.attempt[data-attempt="2"] .diff').first();
    assert.ok((await diff.locator('.add').count()) + (await diff.locator('.del').count()) > 0);
    assert.match((await diff.locator('.diff-title').textContent()) ?? '', /vs attempt 1/);
    assert.equal(await page.locator('#outcome').getAttribute('data-outcome'), 'passed');
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('shows which recovery rungs fired on each attempt', async () => {
    const { page, problems } = await openWebview(shared.browser, shared.origin);
    const msg = await recordedRunState('BLOG-1');
    const fired = msg.state.attempts.map((a) => a.rungs.map((r) => r.rung));
    assert.deepEqual(fired, [[], [2]], 'the recorded BLOG-1 run retried once on rung 2');
    await send(page, msg);
    await page.locator('.attempt[data-attempt="2"] .rung').waitFor();
    assert.equal(await page.locator('.attempt[data-attempt="1"] .rung').count(), 0);
    assert.equal(await page.locator('.attempt[data-attempt="2"] .rung').getAttribute('data-rung'), '2');
    assert.match(
      (await page.locator('.attempt[data-attempt="2"] .rung').textContent()) ?? '',
      /Asked the Coder again, with the failure: attempt 1 failed \(tests failed/,
    );
    assert.deepEqual(problems, []);
    await page.close();
  });

  it("says in plain words when the Coder's answer was cut at the token limit, which edits it was told to fix, and a file not written for elided code", async () => {
    const { page, problems } = await openWebview(shared.browser, shared.origin);
    const msg = await recordedRunState('BLOG-1');
    const first = msg.state.attempts[0]!;
    // The attempt's facts as the reducer keeps them from answer.cut, edit.refused and write.refused (elided).
    first.cuts = [
      {
        outputTokens: 8192,
        final: false,
        detail: 'the answer stopped at the token limit after 31200 characters of text and 0 tool call(s)',
      },
    ];
    first.editRefusals = [
      {
        command: 'str_replace',
        path: 'src/handlers/posts.ts',
        detail:
          'old_str was found 2 times in src/handlers/posts.ts (at lines 12, 30): nothing was replaced. Add lines around it so that it occurs exactly once.',
      },
    ];
    first.refused = [
      {
        path: 'src/handlers/posts.ts',
        reason: 'elided',
        detail: 'src/handlers/posts.ts was not written: it replaces code with a placeholder comment ("// ... existing code ...").',
      },
    ];
    await send(page, msg);
    const attempt = page.locator('.attempt[data-attempt="1"]');
    await attempt.waitFor();
    // Unfold the attempt, as a click on its title does.
    await attempt.evaluate((el) => ((el as HTMLElement & { open: boolean }).open = true));
    await attempt.locator('.cut').waitFor();
    const text = (await attempt.textContent()) ?? '';
    assert.match(
      text,
      /The Coder's answer was cut off at the model's token limit \(8192 tokens\): its unfinished part was not written; it was asked to go on with small edits\./,
    );
    assert.match(text, /1 edit\(s\) the Coder was told to fix, at no attempt's cost: old_str was found 2 times/);
    assert.match(text, /Not written: src\/handlers\/posts\.ts was not written: it replaces code with a placeholder comment/);
    mkdirSync(path.join(REPO, 'test-results'), { recursive: true });
    await attempt.screenshot({ path: path.join(REPO, 'test-results', 'webview-cut-and-elided.png') });
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('each model call in the timeline has a control that asks the host for its prompt and answer; none for a call the log did not record', async () => {
    const { page, problems } = await openWebview(shared.browser, shared.origin);
    const msg = await recordedRunState('BLOG-1');
    const rows = msg.timeline.filter((t) => t.type === 'model.called');
    assert.equal(rows.length, msg.state.modelCalls.length);
    // The recorded log predates prompts on record: every call but the first gets a prompt blob here.
    msg.state.modelCalls.forEach((c, i) => {
      if (i > 0) c.prompt = `prompt${i}`;
    });
    await send(page, msg);
    await page.locator('#timeline .prompt-link').first().waitFor();
    const callRows = page.locator('#timeline li[data-type="model.called"]');
    assert.equal(await callRows.count(), rows.length);
    assert.equal(await page.locator('#timeline .prompt-link').count(), rows.length - 1);
    assert.equal(await callRows.first().locator('.prompt-link').count(), 0, 'no control for a call whose prompt was not recorded');
    assert.match((await callRows.nth(1).textContent()) ?? '', /Debugger model call: .* Prompt and answer$/);
    await callRows.nth(1).locator('.prompt-link').click();
    const shown = (await posted(page)).filter((m) => (m as { type: string }).type === 'model/show');
    assert.deepEqual(shown, [{ type: 'model/show', call: 1 }]);
    assert.ok(parseWebviewMessage(shown[0]).ok);
    mkdirSync(path.join(REPO, 'test-results'), { recursive: true });
    await page.locator('#timeline').screenshot({ path: path.join(REPO, 'test-results', 'webview-prompt-controls.png') });
    assert.deepEqual(problems, [], 'no console errors or CSP violations');
    await page.close();
  });

  it('replays a past run: the scrubber seeks by event', async () => {
    const { page } = await openWebview(shared.browser, shared.origin);
    const msg = await recordedRunState('BLOG-3', { mode: 'replay', upTo: 3 });
    await send(page, msg);
    await page.locator('#replay').waitFor();
    assert.equal(await page.locator('#timeline li').count(), msg.timeline.length);
    await page.locator('#replay-forward').click();
    const seek = (await posted(page)).find((m) => (m as { type: string }).type === 'run/seek');
    assert.deepEqual(seek, { type: 'run/seek', seq: 4 });
    await page.close();
  });

  it('restores its state (a half-written rejection) after being hidden and shown', async () => {
    const msg = await recordedRunState('BLOG-3');
    const first = await openWebview(shared.browser, shared.origin);
    await send(first.page, msg);
    await first.page.locator('#reject').click();
    await first.page.locator('#reject-reason textarea').fill('half a reason');
    const saved = await savedState(first.page);
    await first.page.close();
    // A hidden webview is torn down; shown again, it starts from vscode.getState().
    const second = await openWebview(shared.browser, shared.origin, saved);
    await send(second.page, msg);
    await second.page.locator('#reject-reason').waitFor();
    assert.equal(await second.page.locator('#reject-reason textarea').inputValue(), 'half a reason');
    await second.page.close();
  });
});
