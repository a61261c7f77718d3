import { strict as assert } from 'node:assert';
import { mkdirSync, readdirSync } from 'node:fs';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import { openWebview, recordedRunState, REPO, send, sharedBrowser } from './harness';
import { applyTheme } from './themes';

const FIXTURES = readdirSync(path.join(__dirname, 'fixtures'));
/** A run that paused for the operator's decision, was accepted in the run view and went on to its gates. */
const AFTER_CORRECTION = 'BLOG-4-accepted';
/** VS Code's primary sidebar when it first opens. */
const SIDEBAR_WIDTH = 300;

/** Which check a verdict line is about, from the words it starts with: two wordings of one check are still one check. */
const CHECKS: [string, RegExp][] = [
  ['syntax', /^syntax/i],
  ['type check', /^type/i],
  ['lint', /^lint/i],
  ["the ticket's tests", /ticket'?s tests/i],
  ["the project's tests", /project'?s? tests/i],
  ['held-out cases', /^held-out/i],
  ['build', /^build/i],
  ['review of the code', /review of the code/i],
  ['review of the tests', /review of the tests/i],
  ['coverage', /^coverage/i],
  ['not enabled', /^not enabled/i],
];

const verdictLines = async (page: Page) => (await page.locator('#verdict li').allTextContents()).map((t) => t.trim());

/** The page's elements by id, in document order. */
const orderOf = (page: Page, ids: string[]) =>
  page.evaluate((ids) => ids.map((id) => [...document.querySelectorAll('#app *')].indexOf(document.getElementById(id)!)), ids);

describe('the verdict says each check once, and stays at the top after a correction (headless Chromium, recorded run logs)', function () {
  this.timeout(60_000);
  const shared = sharedBrowser();

  for (const name of FIXTURES) {
    it(`${name}: no two lines of the verdict are about the same check`, async () => {
      const { page, problems } = await openWebview(shared.browser, shared.origin);
      await send(page, await recordedRunState(name));
      await page.locator('#verdict').waitFor();
      const lines = await verdictLines(page);
      const about = lines.map((l) => CHECKS.find(([, re]) => re.test(l))?.[0] ?? l.split(':', 1)[0]!);
      const twice = about.filter((c, i) => about.indexOf(c) !== i);
      assert.deepEqual(twice, [], `checks said twice in:\n${lines.join('\n')}`);
      assert.deepEqual(problems, []);
      await page.close();
    });
  }

  it('a check run on the changed files and on the whole project is one line that names both, and lint has one wording on the page', async () => {
    const { page, problems } = await openWebview(shared.browser, shared.origin);
    await send(page, await recordedRunState(AFTER_CORRECTION));
    await page.locator('#verdict').waitFor();
    const lines = await verdictLines(page);
    assert.ok(lines.includes('Type check: no new errors (the changed files and the whole project)'), lines.join('\n'));
    const lint = lines.filter((l) => /^lint/i.test(l));
    assert.equal(lint.length, 1, lines.join('\n'));
    // The attempt that passed says of lint what the verdict says.
    const attempt = page.locator('.attempt[data-attempt="2"]');
    await attempt.evaluate((el) => ((el as HTMLElement & { open: boolean }).open = true));
    assert.deepEqual(
      (await attempt.locator('li[data-check="lint"]').allTextContents()).map((t) => t.trim()),
      lint,
    );
    assert.doesNotMatch((await page.locator('#app').textContent()) ?? '', /lint of the change|lint: skipped|no linter in this workspace/i);
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('after a correction, how the run ended and what was checked come first, above the decided correction and the attempts', async () => {
    const { page, problems } = await openWebview(shared.browser, shared.origin);
    const msg = await recordedRunState(AFTER_CORRECTION);
    assert.deepEqual(
      msg.state.corrections.map((c) => c.status),
      ['accepted'],
      'the recording resumed after an accepted correction',
    );
    assert.equal(msg.state.status, 'passed');
    await send(page, msg);
    await page.locator('#verdict').waitFor();
    const [outcome, verdict, correction, attempts] = await orderOf(page, ['outcome', 'verdict', 'correction', 'attempts']);
    assert.ok(outcome! >= 0 && correction! >= 0, 'the page shows the outcome and the correction');
    assert.ok(
      outcome! < verdict! && verdict! < correction! && verdict! < attempts!,
      `outcome, verdict, correction, attempts: ${[outcome, verdict, correction, attempts].join(', ')}`,
    );
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('a correction still waiting for a decision comes before the verdict: the decision is what the page asks for', async () => {
    const { page } = await openWebview(shared.browser, shared.origin);
    await send(page, await recordedRunState('BLOG-3'));
    await page.locator('#verdict').waitFor();
    const [correction, verdict] = await orderOf(page, ['correction', 'verdict']);
    assert.ok(correction! >= 0 && correction! < verdict!, `correction, verdict: ${correction}, ${verdict}`);
    await page.close();
  });

  for (const theme of ['light', 'dark'] as const) {
    it(`at the sidebar's width in the ${theme} theme, the verdict after a correction is on the first screen`, async () => {
      const { page, problems } = await openWebview(shared.browser, shared.origin);
      await page.setViewportSize({ width: SIDEBAR_WIDTH, height: 800 });
      await applyTheme(page, theme);
      await send(page, await recordedRunState(AFTER_CORRECTION));
      await page.locator('#verdict').waitFor();
      const box = (await page.locator('#verdict h2').boundingBox())!;
      assert.ok(box.y + box.height < 800, `the verdict's heading is at ${box.y} px, below the first screen`);
      const width = await page.evaluate(() => document.documentElement.clientWidth);
      assert.ok((await page.evaluate(() => document.documentElement.scrollWidth)) <= width + 1, 'the page does not scroll sideways');
      mkdirSync(path.join(REPO, 'test-results'), { recursive: true });
      await page.screenshot({ path: path.join(REPO, 'test-results', `webview-after-correction-${theme}.png`) });
      assert.deepEqual(problems, []);
      await page.close();
    });
  }
});
