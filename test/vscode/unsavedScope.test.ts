import { strict as assert } from 'node:assert';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import { openWindow, pickItem, quickOpen, ROOT, runFromPalette, tempWorkspace } from './workbench';

const SHOTS = path.join(ROOT, 'test-results');
const POSTS = 'src/handlers/posts.ts';
const TYPED = ' // typed, not saved';

/**
 * Run Ticket with a file of the ticket's scope open and changed but not saved, as a user leaves
 * it: a modal names the file and asks; Cancel runs nothing and saves nothing, Save and Run saves
 * it and the run starts from the saved text. Never the older text on disk, never a silent save.
 */
describe("Run Ticket with unsaved changes in the ticket's scope (code-server)", function () {
  this.timeout(420_000);
  let page: Page;
  let close: (() => Promise<void>) | undefined;
  // No auto save: the user's changes stay unsaved until someone saves them.
  const ws = tempWorkspace({ 'files.autoSave': 'off' });
  const onDisk = () => readFileSync(path.join(ws.folder, POSTS), 'utf8');
  const runs = () => {
    const dir = path.join(ws.folder, '.ticket-runner', 'runs');
    return existsSync(dir) ? readdirSync(dir) : [];
  };
  const dialog = () => page.locator('.monaco-dialog-box');

  before(async () => {
    mkdirSync(SHOTS, { recursive: true });
    ({ page, close } = await openWindow(ws));
    await quickOpen(page, 'posts.ts');
    await page.locator('.monaco-editor .view-lines').first().click();
    await page.keyboard.press('Control+Home');
    await page.keyboard.press('End');
    await page.keyboard.type(TYPED);
    await page
      .locator('.tab.active.dirty', { hasText: 'posts.ts' })
      .waitFor({ timeout: 10_000 })
      .catch(async (err: unknown) => {
        await page.screenshot({ path: path.join(SHOTS, 'unsaved-scope-typed.png') });
        throw err;
      });
  });
  after(async () => close?.());

  async function runBlog1(): Promise<void> {
    await runFromPalette(page, 'Ticket Runner: Run Ticket');
    await pickItem(page, 'BLOG-1');
    await dialog().waitFor({ timeout: 60_000 });
  }

  it('the modal names the unsaved file; Cancel starts no run and leaves the file unsaved', async () => {
    await runBlog1();
    const text = await dialog().innerText();
    assert.match(text, /src\/handlers\/posts\.ts has unsaved changes/, text);
    assert.match(text, /Save and Run saves it first; Cancel leaves it as it is and does not run\./, text);
    const buttons = (await dialog().locator('.dialog-buttons .monaco-button').allInnerTexts()).map((t) => t.trim());
    assert.deepEqual([...buttons].sort(), ['Cancel', 'Save and Run'], buttons.join(' | '));
    await page.screenshot({ path: path.join(SHOTS, 'unsaved-scope-modal.png') });
    await dialog()
      .locator('.monaco-button', { hasText: /^Cancel$/ })
      .click();
    await dialog().waitFor({ state: 'detached', timeout: 10_000 });
    await page.waitForTimeout(2_000);
    assert.deepEqual(runs(), [], 'no run started');
    assert.ok(!onDisk().includes(TYPED), 'nothing was saved');
    await page.locator('.tab.dirty', { hasText: 'posts.ts' }).waitFor({ timeout: 10_000 });
  });

  it('Save and Run saves the file, and the run starts from the saved text', async () => {
    await runBlog1();
    await dialog()
      .locator('.monaco-button', { hasText: /^Save and Run$/ })
      .click();
    const end = Date.now() + 60_000;
    while (!runs().length) {
      if (Date.now() > end) throw new Error('no run started after Save and Run');
      await page.waitForTimeout(250);
    }
    const [runId] = runs();
    assert.ok(onDisk().split('\n')[0]!.endsWith(TYPED), 'the typed text is on disk');
    const log = () => readFileSync(path.join(ws.folder, '.ticket-runner', 'runs', runId!, 'events.jsonl'), 'utf8');
    for (
      const stop = Date.now() + 240_000;
      !/"type":"run\.finished"/.test(existsSync(path.join(ws.folder, '.ticket-runner', 'runs', runId!, 'events.jsonl')) ? log() : '');
      await page.waitForTimeout(500)
    ) {
      if (Date.now() > stop) throw new Error('the run did not finish');
    }
    // The Coder's first write replaced the file the run read: what it replaced is the saved text.
    const first = log()
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { type: string; by?: string; files?: { path: string; before: string | null }[] })
      .find((e) => e.type === 'files.written' && e.by === 'coder');
    const before = first?.files?.find((f) => f.path === POSTS)?.before;
    assert.ok(
      before,
      `the Coder wrote ${POSTS}: ${log()
        .split('\n')
        .filter((l) => /files\.written|run\.finished|userEdit/.test(l))
        .join('\n')
        .slice(0, 3000)}`,
    );
    const blob = readFileSync(path.join(ws.folder, '.ticket-runner', 'runs', runId!, 'blobs', before), 'utf8');
    assert.ok(blob.split('\n')[0]!.endsWith(TYPED), 'the run read the saved text, not the older one');
  });
});
