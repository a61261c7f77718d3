import { strict as assert } from 'node:assert';
import { readdirSync } from 'node:fs';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import { openWebview, recordedRunState, send, sharedBrowser } from './harness';

const FIXTURES = readdirSync(path.join(__dirname, 'fixtures'));

/** Names the code uses that no user of the run page should have to read, each with why it is not plain. */
const INTERNAL: [RegExp, string][] = [
  [/\bbrief\b/i, "the Debugger's brief is its advice"],
  [/\bAvoid\b/, 'a prompt heading'],
  [/approaches already flagged|do not repeat them/i, "the Coder's prompt"],
  [/structural/i, "the language service's fixes are the editor's quick fixes"],
  [/\d\s*ms\b/, 'raw milliseconds'],
  [/scripted/i, 'the scripted model is a recorded sample'],
  [/\bdeclare\b|\bop \d|renameSymbol|addImport|setInterfaceField|changeTypeAnnotation/, "a ticket op's schema name"],
  [/scopeAddition|ticketEdit|\btestPlan\b|\bops checked\b/, 'a schema name'],
  [/kept running|files parsed|the workspace's own/i, "the type-checker's process"],
  [/resumed from (manifest|tests|coder)/i, 'a resume entry point'],
];

/** What the page shows, every attempt unfolded: the text a user can read, not the tooltips. */
async function visibleText(page: Page): Promise<string> {
  await page.evaluate(() =>
    document.querySelectorAll('vscode-collapsible').forEach((c) => ((c as HTMLElement & { open: boolean }).open = true)),
  );
  return page.evaluate(() => document.getElementById('app')!.innerText);
}

const count = (text: string, part: string) => text.split(part).length - 1;

describe('the run page in plain words (headless Chromium, recorded run logs)', function () {
  this.timeout(60_000);
  const shared = sharedBrowser();

  for (const name of FIXTURES) {
    it(`${name}: no internal name on the page, and the Debugger's advice once`, async () => {
      const { page, problems } = await openWebview(shared.browser, shared.origin);
      const msg = await recordedRunState(name);
      await send(page, msg);
      await page.locator('#timeline').waitFor();
      const text = await visibleText(page);
      const found = INTERNAL.filter(([re]) => re.test(text)).map(([re, why]) => `${text.match(re)![0]} (${why})`);
      assert.deepEqual(found, [], `internal names on the page of ${name}`);
      for (const a of msg.state.attempts) {
        const d = a.diagnosis;
        if (!d) continue;
        assert.equal(count(text, d.brief), 1, `the advice of attempt ${a.n} is on the page once`);
        assert.equal(await page.locator(`.attempt[data-attempt="${a.n}"] .diagnosis .advice`).first().textContent(), `Advice: ${d.brief}`);
      }
      assert.deepEqual(problems, []);
      await page.close();
    });
  }

  it('the recorded sample says it is one, in its chip, and names its model once', async () => {
    const { page } = await openWebview(shared.browser, shared.origin);
    await send(page, await recordedRunState('BLOG-1'));
    await page.locator('#scripted').waitFor();
    assert.equal(await page.locator('#scripted').textContent(), 'Recorded sample (not a live model)');
    assert.equal(count(await visibleText(page), 'Recorded sample'), 1, 'the header names the model once');
    await page.close();
  });

  it('times are rounded to what a person reads: seconds with a tenth, or minutes and seconds', async () => {
    const { page } = await openWebview(shared.browser, shared.origin);
    await send(page, await recordedRunState('BLOG-14'));
    await page.locator('#timeline').waitFor();
    const labels = await page.locator('#timeline li').allTextContents();
    const times = labels.flatMap((l) => l.match(/\b[\d.]+ s\b|\b\d+ min( \d+ s)?/g) ?? []);
    assert.ok(times.length > 0, 'the timeline says how long things took');
    for (const t of times) assert.match(t, /^(\d+\.\d s|\d+ s|\d+ min( \d+ s)?)$/);
    // The first diagnostics of BLOG-14 took 18937 ms.
    assert.ok(
      labels.some((l) => l.includes('19 s)')),
      labels.join('\n'),
    );
    await page.close();
  });
});
