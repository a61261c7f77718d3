import { strict as assert } from 'node:assert';
import { mkdirSync } from 'node:fs';
import * as path from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from 'playwright-core';
import { openWebview, recordedRunState, REPO, send, sharedBrowser } from './harness';
import { applyTheme, THEMES } from './themes';

/**
 * axe-core over the run view in VS Code's default dark and light themes: a live run with its
 * stage and Cancel, and a correction waiting for a decision with the reject form open. No
 * serious or critical violation may remain.
 */
describe('webview app: accessibility (axe-core)', function () {
  this.timeout(120_000);
  const shared = sharedBrowser();

  async function serious(page: Page): Promise<string[]> {
    const result = await new AxeBuilder({ page }).analyze();
    return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join('; ')}`);
  }

  for (const theme of Object.keys(THEMES) as (keyof typeof THEMES)[]) {
    it(`a correction with the reject form open has no serious or critical violation (${theme})`, async () => {
      const { page, problems } = await openWebview(shared.browser, shared.origin);
      await applyTheme(page, theme);
      await send(page, await recordedRunState('BLOG-2'));
      await page.locator('#reject').click();
      await page.locator('#reject-reason').waitFor();
      const found = await serious(page);
      mkdirSync(path.join(REPO, 'test-results'), { recursive: true });
      await page.screenshot({ path: path.join(REPO, 'test-results', `webview-axe-${theme}.png`), fullPage: true });
      assert.deepEqual(found, []);
      assert.deepEqual(problems, []);
      await page.close();
    });

    it(`a live run with its stage and Cancel has no serious or critical violation (${theme})`, async () => {
      const { page, problems } = await openWebview(shared.browser, shared.origin);
      await applyTheme(page, theme);
      await send(page, await recordedRunState('BLOG-1', { upTo: 14, canCancel: true }));
      await page.locator('#stage').waitFor();
      assert.deepEqual(await serious(page), []);
      assert.deepEqual(problems, []);
      await page.close();
    });
  }
});
