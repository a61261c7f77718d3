import { strict as assert } from 'node:assert';
import { mkdirSync } from 'node:fs';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import { RunEvent } from '../../src/core/schema/events';
import { reduceRun } from '../../src/core/run/reducer';
import { decodeLog } from '../../src/core/run/logCodec';
import { openWebview, posted, recordedRunState, REPO, send, sharedBrowser } from './harness';
import { applyTheme } from './themes';

/**
 * What a newcomer reads first on a run's page, in headless Chromium against the recorded runs:
 * the verdict and what was checked before the attempts, a rolled-back run that says so, a replay
 * moved from the keyboard that never claims to be running, and no internal name on the page.
 */
describe('webview app: the verdict first, rollback, replay from the keyboard', function () {
  this.timeout(90_000);
  const shared = sharedBrowser();
  const shots = path.join(REPO, 'test-results');

  const seeks = async (page: Page) =>
    ((await posted(page)) as { type: string; seq?: number }[]).filter((m) => m.type === 'run/seek').map((m) => m.seq);

  it("a finished run's page opens with what was checked, in words, before the attempts", async () => {
    const { page, problems } = await openWebview(shared.browser, shared.origin);
    await send(page, await recordedRunState('BLOG-1'));
    await page.locator('#verdict').waitFor();
    const lines = (await page.locator('#verdict li').allTextContents()).map((t) => t.trim());
    assert.deepEqual(lines, [
      'Syntax: passed',
      'Type check: no new errors',
      'Lint: not checked — no ESLint config in the workspace (eslint.config.* or .eslintrc*)',
      "The ticket's tests: passed (2 of 2)",
      "The project's tests: passed (7 tests in 1 file that use the change)",
    ]);
    // The verdict, then what was checked, then the attempts.
    const order = await page.evaluate(() =>
      ['outcome', 'verdict', 'attempts'].map((id) => [...document.querySelectorAll('#app *')].indexOf(document.getElementById(id)!)),
    );
    assert.ok(order[0]! >= 0 && order[0]! < order[1]! && order[1]! < order[2]!, `outcome, verdict, attempts: ${order.join(', ')}`);
    const text = (await page.locator('#app').textContent()) ?? '';
    assert.doesNotMatch(text, /projectTests|implementationReview|Rung \d|rung \d/);
    mkdirSync(shots, { recursive: true });
    await page.screenshot({ path: path.join(shots, 'webview-verdict.png'), clip: { x: 0, y: 0, width: 1000, height: 420 } });
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('a run judged by a held-out case says, under what was checked, how many visible and held-out cases and property runs judged it', async () => {
    const { page, problems } = await openWebview(shared.browser, shared.origin);
    await send(page, await recordedRunState('BLOG-14'));
    await page.locator('#judged-by').waitFor();
    assert.equal(
      (await page.locator('#judged-by').textContent())?.trim(),
      'Judged by 2 visible cases, 1 held-out case and 0 property runs.',
    );
    assert.equal(
      (await page.locator('#verdict li[data-key="verdict-check:heldOut"]').textContent())?.trim(),
      'Held-out cases: passed (1 of 1, never shown to the Coder)',
    );
    // Under the list of checks, inside the summary.
    assert.equal(await page.locator('#verdict > ul + #judged-by').count(), 1);
    mkdirSync(shots, { recursive: true });
    await page.locator('#verdict').screenshot({ path: path.join(shots, 'webview-judged-by.png') });
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('a run stopped for a decision sums up what failed, and its page shows no request id', async () => {
    const { page, problems } = await openWebview(shared.browser, shared.origin);
    const msg = await recordedRunState('BLOG-3');
    await send(page, msg);
    await page.locator('#correction').waitFor();
    assert.match(
      (await page.locator('#verdict li[data-key="verdict-check:tests"]').textContent()) ?? '',
      /^\s*The ticket's tests: \d+ of \d+ failed$/,
    );
    const text = (await page.locator('#app').textContent()) ?? '';
    assert.ok(!text.includes(msg.state.corrections[0]!.request.id), 'the request id is nowhere on the page');
    assert.doesNotMatch(text, /-c\d\b|scopeAddition/);
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('a rolled-back run says so in its badge, its icon and its outcome, never "passed"', async () => {
    const { page, problems } = await openWebview(shared.browser, shared.origin);
    const msg = await recordedRunState('BLOG-1');
    const events = decodeLog(
      (await import('node:fs')).readFileSync(path.join(__dirname, 'fixtures', 'BLOG-1', 'events.jsonl'), 'utf8'),
      'BLOG-1',
    ).events;
    const last = events[events.length - 1]!;
    msg.state = reduceRun(last.runId, [
      ...events,
      RunEvent.parse({ runId: last.runId, seq: last.seq + 1, ts: last.ts, type: 'run.rolledBack', files: [] }),
    ]);
    await send(page, msg);
    await page.locator('#status').waitFor();
    assert.equal((await page.locator('#status').textContent())?.trim(), 'rolled back');
    assert.equal(await page.locator('#status').getAttribute('data-status'), 'rolledBack');
    assert.equal(await page.locator('#header h1 .codicon-discard').count(), 1);
    assert.equal(await page.locator('#header h1 .codicon-pass').count(), 0, 'no green check');
    assert.match(
      (await page.locator('#outcome').textContent()) ?? '',
      /^\s*Rolled back: the files it wrote were put back\. Before that: passed\.$/,
    );
    await page.locator('#header').screenshot({ path: path.join(shots, 'webview-rolled-back.png') });
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('the replay slider moves from the keyboard, stays in step with the step buttons, and a replay never shows "running"', async () => {
    const { page, problems } = await openWebview(shared.browser, shared.origin);
    await applyTheme(page, 'light');
    let seq = 3;
    await send(page, await recordedRunState('BLOG-3', { mode: 'replay', upTo: seq }));
    const range = page.locator('#replay-range');
    await range.waitFor();
    const total = (await recordedRunState('BLOG-3')).position.total;
    assert.equal(await range.getAttribute('aria-label'), 'Replay position');
    // Part way through: where the replay is, and no spinner.
    assert.equal((await page.locator('#status').textContent())?.trim(), `replay: event 4 of ${total}`);
    assert.equal(await page.locator('#header .codicon-loading, vscode-progress-ring').count(), 0);
    assert.doesNotMatch((await page.locator('#header').textContent()) ?? '', /running/);
    await page.locator('#replay').screenshot({ path: path.join(shots, 'webview-replay.png') });
    // The host answers each seek with the state there, as the run panel does.
    // Each key or click below asks for one seek. On a loaded machine the page may post it after the
    // press returns, so the host waits for it (at most 10 s) rather than reading once.
    let answered = (await seeks(page)).length;
    const answer = async () => {
      let all = await seeks(page);
      for (const deadline = Date.now() + 10_000; all.length === answered && Date.now() < deadline; all = await seeks(page)) {
        await new Promise((r) => setTimeout(r, 50));
      }
      answered = all.length;
      const asked = all.at(-1);
      if (asked === undefined || asked === seq) return;
      seq = asked;
      await send(page, await recordedRunState('BLOG-3', { mode: 'replay', upTo: seq }));
      await page.waitForFunction((s) => document.querySelector('#replay')?.textContent?.includes(`event ${s + 1} of`), seq);
    };
    await range.focus();
    await page.keyboard.press('ArrowRight');
    await answer();
    assert.equal(seq, 4);
    await page.keyboard.press('ArrowLeft');
    await answer();
    assert.equal(seq, 3);
    await page.keyboard.press('End');
    await answer();
    assert.equal(seq, total - 1);
    // At the end the replay shows how the run ended.
    assert.equal((await page.locator('#status').textContent())?.trim(), 'waiting for your decision');
    await page.keyboard.press('Home');
    await answer();
    assert.equal(seq, 0);
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'replay-range', 'the keyboard stays on the slider');
    // The step buttons move the slider with them.
    await page.locator('#replay-forward').click();
    await answer();
    await page.locator('#replay-forward').click();
    await answer();
    assert.equal(seq, 2);
    assert.equal(await range.inputValue(), '2', 'the slider follows the buttons');
    await page.locator('#replay-last').click();
    await answer();
    assert.equal(await range.inputValue(), String(total - 1));
    assert.match((await range.getAttribute('aria-valuetext')) ?? '', new RegExp(`^event ${total} of ${total}: `));
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('the recorded sample chip reads at 4.5:1 or more in the light and dark themes', async () => {
    for (const theme of ['light', 'dark'] as const) {
      const { page } = await openWebview(shared.browser, shared.origin);
      await applyTheme(page, theme);
      await send(page, await recordedRunState('BLOG-1'));
      await page.locator('#scripted').waitFor();
      // A string, not a function: the test transpiler would wrap a function's names in helpers the page lacks.
      const ratio = await page.evaluate<number>(`(() => {
        const rgb = (c) => (c.match(/[\\d.]+/g) || []).map(Number);
        const lum = (c) => c.slice(0, 3).map((v) => (v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4).reduce((s, v, i) => s + v * [0.2126, 0.7152, 0.0722][i], 0);
        // The chip's text over its own tint over the page.
        const chip = document.getElementById('scripted');
        const fg = rgb(getComputedStyle(chip).color);
        const under = rgb(getComputedStyle(document.body).backgroundColor);
        const tint = rgb(getComputedStyle(chip).backgroundColor);
        const a = tint.length === 4 ? tint[3] : 1;
        const bg = [0, 1, 2].map((i) => tint[i] * a + under[i] * (1 - a));
        const [l1, l2] = [lum(fg), lum(bg)].sort((x, y) => y - x);
        return (l1 + 0.05) / (l2 + 0.05);
      })()`);
      assert.ok(ratio >= 4.5, `${theme}: the recorded sample chip's contrast is ${ratio.toFixed(2)}:1`);
      if (theme === 'light') await page.locator('#header').screenshot({ path: path.join(shots, 'webview-scripted-light.png') });
      await page.close();
    }
  });
});
