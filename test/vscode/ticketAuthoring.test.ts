import { strict as assert } from 'node:assert';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import { openWindow, quickOpen, ROOT, tempWorkspace } from './workbench';

const SHOTS = path.join(ROOT, 'test-results');

/**
 * Writing a ticket in a real VS Code, as the author sees it: the error on a scope.write path
 * that does not exist with its two quick fixes, and a test import's names completed from the
 * module's exports. The in-host suite checks the same through the API; this looks at the screen,
 * in the dark theme and in the light one (each window opens in its theme: a widget open on the
 * screen may close when the theme changes under it).
 */
for (const [theme, themeId] of [
  ['dark', 'Default Dark Modern'],
  ['light', 'Default Light Modern'],
] as const)
  describe(`ticket authoring in code-server, in the ${theme} theme: what the author sees`, function () {
    this.timeout(420_000);
    let page: Page;
    let close: (() => Promise<void>) | undefined;
    const ws = tempWorkspace({ 'workbench.colorTheme': themeId });

    before(async () => {
      mkdirSync(SHOTS, { recursive: true });
      const t = JSON.parse(readFileSync(path.join(ws.folder, '.tickets', 'BLOG-1.ticket.json'), 'utf8')) as {
        id: string;
        scope: { write: string[] };
        testPlan: { files: { path: string; imports: object[] }[] };
      };
      t.id = 'LSP-3';
      t.scope.write = ['src/handlers/psts.ts'];
      t.testPlan.files[0]!.path = 'test/ticket/LSP-3.test.ts';
      t.testPlan.files[0]!.imports = [{ from: '../../src/handlers/posts', names: ['Post'] }];
      writeFileSync(path.join(ws.folder, '.tickets', 'LSP-3.ticket.json'), `${JSON.stringify(t, null, 2)}\n`);
      ({ page, close } = await openWindow(ws));
      await quickOpen(page, 'LSP-3.ticket.json');
    });
    after(async () => close?.());

    /** Puts the caret at the end of the first match of `text` in the editor, `back` characters before it. */
    async function caretAfter(text: string, back = 0): Promise<void> {
      await page.locator('.monaco-editor .view-lines').first().click();
      await page.keyboard.press('Control+F');
      const find = page.locator('.find-widget textarea, .find-widget input').first();
      await find.waitFor({ timeout: 10_000 });
      await find.fill(text);
      await page.keyboard.press('Enter');
      await page.keyboard.press('Escape');
      await page.keyboard.press('ArrowRight');
      for (let i = 0; i < back; i++) await page.keyboard.press('ArrowLeft');
    }

    it('a scope.write path that does not exist is underlined as an error that says both ways out, and offers both fixes', async () => {
      await page.locator('.monaco-editor .squiggly-error').first().waitFor({ timeout: 120_000 });
      await caretAfter('psts');
      await page.keyboard.press('F8');
      const marker = page.locator('.marker-widget');
      await marker.waitFor({ timeout: 30_000 });
      assert.match(
        await marker.innerText(),
        /scope\.write\[0\] "src\/handlers\/psts\.ts" does not exist: fix the path \(did you mean src\/handlers\/posts\.ts\?\), or, if the ticket creates it, list what it will export: the ticket adds those declarations to it before the Coder starts/,
      );
      await page.screenshot({ path: path.join(SHOTS, `ticket-scope-write-error-${theme}.png`) });
      await page.keyboard.press('Escape');
      await caretAfter('psts');
      await page.keyboard.press('Control+.');
      const menu = page.locator('.action-widget');
      await menu.waitFor({ timeout: 30_000 });
      await menu.locator('text=List what src/handlers/psts.ts will export').waitFor({ timeout: 30_000 });
      assert.match(await menu.innerText(), /Change to "src\/handlers\/posts\.ts"/);
      await page.screenshot({ path: path.join(SHOTS, `ticket-scope-write-fixes-${theme}.png`) });
      await page.keyboard.press('Escape');
    });

    it("completes a test import's names with the module's exports and their types", async () => {
      // Typed so far: Post. The editor keeps the names that match it (both do).
      await caretAfter('"Post"', 1);
      await page.keyboard.press('Control+Space');
      const suggest = page.locator('.suggest-widget.visible');
      await suggest.waitFor({ timeout: 30_000 });
      await suggest.locator('text=listPosts').first().waitFor({ timeout: 30_000 });
      assert.match(await suggest.innerText(), /getPostHandler/);
      await page.screenshot({ path: path.join(SHOTS, `ticket-import-completion-${theme}.png`) });
      await page.keyboard.press('Escape');
    });
  });
