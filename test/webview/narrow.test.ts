import { strict as assert } from 'node:assert';
import { mkdirSync } from 'node:fs';
import * as path from 'node:path';
import { openWebview, recordedRunState, REPO, send, sharedBrowser } from './harness';
import { applyTheme } from './themes';

/**
 * The run view in a 400 px panel: every diff line, the changed ones first of all, is on screen
 * (wrapped, never cut off past the panel's edge), and "Open in diff editor" stays reachable.
 */
describe('webview app: a 400 px panel', function () {
  this.timeout(90_000);
  const shared = sharedBrowser();

  for (const ticket of ['BLOG-2', 'BLOG-3']) {
    it(`no diff line of ${ticket}'s correction is clipped, and Open in diff editor is on screen`, async () => {
      const { page, problems } = await openWebview(shared.browser, shared.origin);
      await page.setViewportSize({ width: 400, height: 900 });
      await applyTheme(page, 'dark');
      await send(page, await recordedRunState(ticket));
      await page.locator('.correction-box[data-status="pending"]').waitFor();
      const report = await page.evaluate(() => {
        const width = document.documentElement.clientWidth;
        const pres = [...document.querySelectorAll('.correction-box .diff pre')] as HTMLElement[];
        const clipped: string[] = [];
        let lines = 0;
        for (const pre of pres) {
          const box = pre.getBoundingClientRect();
          // A pre that scrolls sideways hides the end of its lines: wrapping keeps them in view.
          if (pre.scrollWidth > pre.clientWidth + 1) clipped.push(`a diff scrolls sideways by ${pre.scrollWidth - pre.clientWidth} px`);
          for (const span of pre.querySelectorAll('span.add, span.del')) {
            lines++;
            const r = span.getBoundingClientRect();
            if (r.right > Math.min(box.right, width) + 1 || r.left < box.left - 1)
              clipped.push(`"${(span.textContent ?? '').slice(0, 40)}" runs past the edge`);
          }
        }
        const buttons = [...document.querySelectorAll('.correction-box vscode-button.open-diff')].map((b) => {
          const r = b.getBoundingClientRect();
          return { left: r.left, right: r.right, width: r.width };
        });
        return { width, lines, clipped, buttons, pageScrollsSideways: document.documentElement.scrollWidth > width + 1 };
      });
      assert.ok(report.lines > 0, 'the correction shows changed lines');
      assert.deepEqual(report.clipped, []);
      assert.equal(report.pageScrollsSideways, false, 'the page itself does not scroll sideways');
      assert.ok(report.buttons.length > 0, 'Open in diff editor is there');
      for (const b of report.buttons)
        assert.ok(b.width > 0 && b.left >= 0 && b.right <= report.width, `the button is inside the panel: ${JSON.stringify(b)}`);
      mkdirSync(path.join(REPO, 'test-results'), { recursive: true });
      await page
        .locator('.correction-box[data-status="pending"]')
        .screenshot({ path: path.join(REPO, 'test-results', `webview-400px-${ticket}.png`) });
      assert.deepEqual(problems, []);
      await page.close();
    });
  }
});
