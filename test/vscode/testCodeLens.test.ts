import { strict as assert } from 'node:assert';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import { parse } from 'yaml';
import { docScreenshot } from '../support/docScreenshot';
import { inEachTheme, openWindow, quickOpen, ROOT, tempWorkspace } from './workbench';

/** A test written first, as its author saves it: src/utils/slug.ts is not written yet. */
const SLUG_TEST = `import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { slugify } from '../src/utils/slug';

describe('slugify', () => {
  it('lowercases the title and joins its words with dashes', () => {
    assert.equal(slugify('Hello World'), 'hello-world');
  });
  it('drops punctuation', () => {
    assert.equal(slugify('Hello, World!'), 'hello-world');
  });
  it('keeps digits', () => {
    assert.equal(slugify('Top 10 posts'), 'top-10-posts');
  });
});
`;

/**
 * "Make this pass with Ticket Runner" on a test the user wrote, as they see it in a real VS Code:
 * the lens above the file's first line, pictured in both themes, and its click, which writes the
 * ticket that takes the file as its oracle, opens it, says what it drafted, and runs nothing.
 */
describe('the test code lens in code-server: a test the user wrote becomes a ticket', function () {
  this.timeout(420_000);
  let page: Page;
  let close: (() => Promise<void>) | undefined;
  // No minimap: the picture is of the lens and the test.
  const ws = tempWorkspace({ 'editor.minimap.enabled': false });
  const editor = () => page.locator('.editor-group-container.active .monaco-editor').first();
  const lens = () => editor().locator('.codelens-decoration a');
  /** The line number the editor shows for line `n` of the file. */
  const lineNumber = (n: number) =>
    editor()
      .locator('.line-numbers', { hasText: new RegExp(`^\\s*${n}\\s*$`) })
      .first();

  before(async () => {
    writeFileSync(path.join(ws.folder, 'test', 'slug.test.ts'), SLUG_TEST);
    ({ page, close } = await openWindow(ws));
    await quickOpen(page, 'slug.test.ts');
  });
  after(async () => close?.());

  it("stands above the file's first line, in the light theme and the dark one", async () => {
    await lens().filter({ hasText: 'Make this pass with Ticket Runner' }).waitFor({ timeout: 120_000 });
    assert.deepEqual(await lens().allInnerTexts(), ['Make this pass with Ticket Runner'], 'one lens, on the file');
    const lensBox = (await lens().boundingBox())!;
    const firstLine = (await lineNumber(1).boundingBox())!;
    assert.ok(lensBox.y + lensBox.height <= firstLine.y + 1, `the lens (y ${lensBox.y}) is above line 1 (y ${firstLine.y})`);
    // The caret on the empty last line, so no word is highlighted, and no hover on the lens.
    await editor().locator('.view-lines').click();
    await page.keyboard.press('Control+End');
    await page.mouse.move(700, 800);
    const shown = page.locator('.editor-group-container.active');
    const lines = SLUG_TEST.split('\n').length;
    await inEachTheme(page, ws.folder, (theme) => docScreenshot(shown, `code-lens-${theme}`, { bottom: lineNumber(lines) }));
  });

  it('drafts the ticket on a click: the test as its oracle, its import as its scope, a criterion per case; opened, not run', async () => {
    await lens().filter({ hasText: 'Make this pass with Ticket Runner' }).click();
    await page.locator('.tab.active', { hasText: 'BLOG-16.ticket.yaml' }).waitFor({ timeout: 60_000 });
    const toast = page.locator('.notifications-toasts .notification-toast', { hasText: 'Drafted BLOG-16' });
    await toast.waitFor({ timeout: 60_000 });
    assert.match(
      await toast.innerText(),
      /Drafted BLOG-16 from test\/slug\.test\.ts: 3 criteria, 1 file in scope \(1 to create\)\. Read it, then run it\./,
    );
    await toast.locator('.monaco-button', { hasText: 'Run Ticket' }).waitFor({ timeout: 10_000 });
    await page.screenshot({ path: path.join(ROOT, 'test-results', 'code-lens-drafted.png') });
    const ticket = parse(readFileSync(path.join(ws.folder, '.tickets', 'BLOG-16.ticket.yaml'), 'utf8')) as {
      id: string;
      title: string;
      scope: { write: string[] };
      acceptance: { id: string; text: string }[];
      testPlan: unknown;
    };
    assert.equal(ticket.id, 'BLOG-16');
    assert.equal(ticket.title, 'slugify');
    assert.deepEqual(ticket.testPlan, { authored: ['test/slug.test.ts'] });
    assert.deepEqual(ticket.scope.write, ['src/utils/slug.ts']);
    assert.deepEqual(
      ticket.acceptance.map((a) => `${a.id} ${a.text}`),
      ['AC1 lowercases the title and joins its words with dashes', 'AC2 drops punctuation', 'AC3 keeps digits'],
    );
    const runs = path.join(ws.folder, '.ticket-runner', 'runs');
    assert.deepEqual(existsSync(runs) ? readdirSync(runs) : [], [], 'nothing ran');
  });

  it('on the test again, offers to run the ticket that now takes it as its oracle', async () => {
    // Back to the test's tab, as a user goes back to it.
    await page.locator('.tab', { hasText: 'slug.test.ts' }).click();
    await page.locator('.tab.active', { hasText: 'slug.test.ts' }).waitFor({ timeout: 30_000 });
    await lens().filter({ hasText: 'Run BLOG-16' }).waitFor({ timeout: 60_000 });
    assert.deepEqual(await lens().allInnerTexts(), ['Run BLOG-16']);
  });
});

/**
 * The lens starts the extension in any project with a test file. Where there is no ticket yet,
 * that start offers nothing unasked: no walkthrough, no status bar item; the lens is all.
 */
describe('the test code lens in a project with no ticket: the lens, and nothing else', function () {
  this.timeout(420_000);
  let page: Page;
  let close: (() => Promise<void>) | undefined;
  // No model chosen: where tickets are, this start would offer the walkthrough.
  const ws = tempWorkspace({ 'ticketRunner.model': 'anthropic' });

  before(async () => {
    rmSync(path.join(ws.folder, '.tickets'), { recursive: true, force: true });
    writeFileSync(path.join(ws.folder, 'test', 'slug.test.ts'), SLUG_TEST);
    ({ page, close } = await openWindow(ws));
    await quickOpen(page, 'slug.test.ts');
  });
  after(async () => close?.());

  it('shows the lens, and neither the walkthrough offer nor a status bar item', async () => {
    const editor = page.locator('.editor-group-container.active .monaco-editor').first();
    await editor.locator('.codelens-decoration a', { hasText: 'Make this pass with Ticket Runner' }).waitFor({ timeout: 120_000 });
    // The offer, where it is made, comes within a second or two of the start.
    await page.waitForTimeout(5_000);
    assert.equal(await page.locator('.notification-toast', { hasText: 'walkthrough' }).count(), 0, 'no walkthrough offered');
    assert.equal(await page.locator('.statusbar-item', { hasText: /Recorded Sample|Anthropic|Chat Model|No Model/ }).count(), 0);
  });
});
