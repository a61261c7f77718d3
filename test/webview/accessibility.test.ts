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
    return result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map(
        (v) =>
          `${v.id} (${v.impact}): ${v.help} — ${v.nodes
            .slice(0, 3)
            .map((n) => n.target.join(' '))
            .join('; ')}`,
      );
  }

  it('every control is reachable with Tab, and the one that has the keyboard shows a focus outline', async () => {
    const { page, problems } = await openWebview(shared.browser, shared.origin);
    await applyTheme(page, 'dark');
    await send(page, await recordedRunState('BLOG-2', { canCancel: true }));
    await page.locator('#accept').waitFor();
    // Every control of the page that takes the keyboard, tagged so a visit can be told apart.
    const total = await page.evaluate(() => {
      const controls = [
        ...document.querySelectorAll('#app a[href], #app vscode-button:not([disabled]), #app input, #app [tabindex="0"]'),
      ].filter((el) => (el as HTMLElement).offsetParent !== null);
      controls.forEach((el, i) => el.setAttribute('data-control', String(i)));
      return controls.length;
    });
    assert.ok(total > 5);
    const seen = new Set<string>();
    const unringed: string[] = [];
    for (let k = 0; k < total * 3 && seen.size < total; k++) {
      await page.keyboard.press('Tab');
      const f = await page.evaluate(() => {
        const el = document.activeElement as HTMLElement | null;
        const control = el?.closest('[data-control]');
        if (!control) return null;
        // The ring is an outline on the element, or the control's own (vscode-elements draw theirs inside).
        const inner = (el!.shadowRoot?.activeElement ??
          el!.shadowRoot?.querySelector('button, textarea, input, [part]') ??
          el) as HTMLElement;
        const visible =
          [el!, inner].some((x) => {
            const cs = getComputedStyle(x);
            return (cs.outlineStyle !== 'none' && parseFloat(cs.outlineWidth) > 0) || cs.boxShadow !== 'none';
          }) || el!.hasAttribute('focused');
        return { id: control.getAttribute('data-control')!, visible, name: control.id || control.className || control.tagName };
      });
      if (!f) continue;
      seen.add(f.id);
      if (!f.visible) unringed.push(f.name);
    }
    assert.equal(seen.size, total, 'every control took the keyboard');
    assert.deepEqual(unringed, [], 'each showed where the keyboard is');
    assert.deepEqual(problems, []);
    await page.close();
  });

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
