import { strict as assert } from 'node:assert';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { DOC_SCREENSHOTS, docScreenshot } from '../support/docScreenshot';
import { openWebview, sharedBrowser } from './harness';

/** A README picture that cannot be taken fails its test; it is never skipped or written empty. */
describe('doc screenshots', function () {
  this.timeout(90_000);
  const shared = sharedBrowser();

  it('refuses an element with nothing to show, and writes no file', async () => {
    const { page } = await openWebview(shared.browser, shared.origin);
    await page.evaluate(() => {
      const dot = document.createElement('div');
      dot.id = 'dot';
      dot.style.cssText = 'width:10px;height:10px;background:red';
      document.body.append(dot);
    });
    await assert.rejects(
      docScreenshot(page.locator('#dot'), 'never-written'),
      /the screenshot never-written has nothing to show: its element is 10x10 px/,
    );
    assert.equal(existsSync(path.join(DOC_SCREENSHOTS, 'never-written.png')), false);
    await page.close();
  });
});
