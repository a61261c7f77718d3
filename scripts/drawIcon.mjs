// Draws media/icon.png, the extension's icon in the Extensions view and the Marketplace, from
// media/icon.svg: Chromium renders the SVG at 256 x 256 (the Marketplace asks for 128 at least).
// Run it after changing the SVG: node scripts/drawIcon.mjs
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const root = join(import.meta.dirname, '..');
const svg = readFileSync(join(root, 'media', 'icon.svg'), 'utf8');
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu'],
});
try {
  const page = await browser.newPage({ viewport: { width: 256, height: 256 } });
  await page.setContent(`<html><body style="margin:0;background:transparent">${svg}</body></html>`);
  await page.locator('svg').screenshot({ path: join(root, 'media', 'icon.png'), omitBackground: true });
} finally {
  await browser.close();
}
