import { mkdirSync, statSync } from 'node:fs';
import * as path from 'node:path';
import type { Locator } from 'playwright-core';

const REPO = path.resolve(__dirname, '..', '..');
/**
 * Where the README's screenshots are written: `docs/screenshots` when asked for
 * (`UPDATE_SCREENSHOTS=1`, or `npm run screenshots`), the tests being their only source;
 * otherwise `test-results/screenshots` (ignored by git), so a test run leaves the tracked tree
 * as it was and still takes and checks each picture.
 */
export const DOC_SCREENSHOTS =
  process.env['UPDATE_SCREENSHOTS'] === '1' ? path.join(REPO, 'docs', 'screenshots') : path.join(REPO, 'test-results', 'screenshots');

/** Above this a PNG is too heavy for git: crop to the part that matters instead. */
const MAX_BYTES = 400_000;

/**
 * Writes `<name>.png` (into DOC_SCREENSHOTS) from one element (cut below `bottom`, when given). It
 * throws, so the test fails, when the element is missing, hidden or empty, or the PNG comes out
 * too big: a README picture is never silently skipped or left stale.
 */
export async function docScreenshot(target: Locator, name: string, opts: { bottom?: Locator } = {}): Promise<string> {
  await target.waitFor({ state: 'visible', timeout: 30_000 });
  const box = await target.boundingBox();
  if (!box || box.width < 50 || box.height < 50)
    throw new Error(
      `the screenshot ${name} has nothing to show: its element is ${box ? `${box.width}x${box.height} px` : 'not on screen'}`,
    );
  mkdirSync(DOC_SCREENSHOTS, { recursive: true });
  const file = path.join(DOC_SCREENSHOTS, `${name}.png`);
  if (opts.bottom) {
    // A panel taller than what it holds (a sidebar): cut it a little below its last element.
    await opts.bottom.waitFor({ state: 'visible', timeout: 30_000 });
    const last = (await opts.bottom.boundingBox())!;
    const height = Math.min(box.height, last.y + last.height + 12 - box.y);
    await target.page().screenshot({ path: file, animations: 'disabled', clip: { x: box.x, y: box.y, width: box.width, height } });
  } else await target.screenshot({ path: file, animations: 'disabled' });
  const size = statSync(file).size;
  if (size > MAX_BYTES) throw new Error(`the screenshot ${name} is ${size} bytes, over ${MAX_BYTES}: crop it to the part that matters`);
  return file;
}
