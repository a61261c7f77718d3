import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import * as esbuild from 'esbuild';
import type { Browser, Page } from 'playwright-core';
import { CHROMIUM_ARGS, CHROMIUM } from '../webview/harness';
import { ROOT, startCodeServer, workbenchUrl } from './codeServer';

export { ROOT };

/** A temp copy of the blog-api fixture set up for the scripted model; devDependencies from this repo. */
export function tempWorkspace(settings: Record<string, unknown> = {}): { base: string; folder: string; dispose: () => void } {
  const base = mkdtempSync(path.join(tmpdir(), 'tr-vscode-'));
  const folder = path.join(base, 'blog-api');
  cpSync(path.join(ROOT, 'test', 'fixtures', 'blog-api'), folder, { recursive: true, filter: (src) => !src.includes('node_modules') });
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(folder, 'node_modules'), 'dir');
  mkdirSync(path.join(folder, '.vscode'), { recursive: true });
  writeFileSync(
    path.join(folder, '.vscode', 'settings.json'),
    JSON.stringify({ 'ticketRunner.model': 'scripted', 'ticketRunner.diagnostics': 'editor', ...settings }, null, 2),
  );
  return { base, folder, dispose: () => rmSync(base, { recursive: true, force: true }) };
}

/**
 * Bundles the in-host suite (mocha stays external: it loads from this repo's node_modules), or
 * another extensionTestsPath entry such as the bench's.
 */
export async function buildSuite(
  entry = path.join(ROOT, 'test', 'vscode', 'suite', 'index.ts'),
  outfile = path.join(ROOT, 'out', 'vscode-suite', 'index.js'),
): Promise<string> {
  await esbuild.build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['vscode', 'mocha'],
    // As scripts/build.mjs: jsonc-parser's UMD entry cannot be bundled.
    alias: { 'jsonc-parser': 'jsonc-parser/lib/esm/main.js' },
    sourcemap: 'inline',
    logLevel: 'warning',
  });
  return outfile;
}

export async function launchChromium(): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
}

/** Opens the workbench and waits until it is up. */
export async function openWorkbench(
  browser: Browser,
  url: string,
  hooks?: { exit?: (code: number) => void; log?: (s: string) => void },
): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  if (hooks?.exit) await page.exposeFunction('codeAutomationExit', hooks.exit);
  if (hooks?.log) await page.exposeFunction('codeAutomationLog', hooks.log);
  await page.goto(url);
  await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
  return page;
}

/** F1, a command by its palette title, Enter. */
export async function runFromPalette(page: Page, title: string): Promise<void> {
  // Right after the workbench loads, the extension may not have activated yet; and focus inside a
  // webview's frame (a walkthrough step, a run view) keeps F1 from the workbench, or takes the
  // palette away as the frame finishes loading. Either way: the frame loses focus, and again.
  for (let attempt = 1; ; attempt++) {
    try {
      await page.keyboard.press('F1');
      const input = page.locator('.quick-input-widget input');
      await input.waitFor({ timeout: 10_000 });
      await input.fill(`>${title}`, { timeout: 10_000 });
      await page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first().waitFor({ timeout: 10_000 });
      await page.keyboard.press('Enter');
      return;
    } catch (err) {
      if (attempt >= 6) throw err;
      await page.keyboard.press('Escape');
      await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    }
  }
}

/** Quick Open (Ctrl+P), as a user opens a file: its name, Enter, until its tab is the active one. */
export async function quickOpen(page: Page, name: string): Promise<void> {
  const input = page.locator('.quick-input-widget input');
  for (let attempt = 1; !(await input.isVisible()); attempt++) {
    await page.locator('.monaco-workbench').click({ position: { x: 400, y: 300 } });
    await page.keyboard.press('Control+P');
    await input.waitFor({ timeout: 10_000 }).catch((err: unknown) => {
      if (attempt >= 5) throw err;
    });
  }
  await input.fill(name);
  await page.locator('.quick-input-list .monaco-list-row', { hasText: name }).first().waitFor({ timeout: 30_000 });
  await page.keyboard.press('Enter');
  await page.locator('.tab.active', { hasText: name }).waitFor({ timeout: 30_000 });
}

/** Picks an item of an open quick pick by its label. */
export async function pickItem(page: Page, label: string): Promise<void> {
  const input = page.locator('.quick-input-widget input');
  await page.locator('.quick-input-list .monaco-list-row', { hasText: label }).first().waitFor({ timeout: 30_000 });
  await input.fill(label, { timeout: 10_000 });
  await page.locator('.quick-input-list .monaco-list-row.focused', { hasText: label }).first().waitFor({ timeout: 10_000 });
  await page.keyboard.press('Enter');
}

/** The run webview's document (the editor nests it in two iframes). */
export function runWebview(page: Page) {
  return page.frameLocator('iframe.webview.ready').last().frameLocator('iframe#active-frame');
}

/**
 * A window on a temp workspace with the extension loaded as the development extension: its page,
 * and `close`, which ends the browser, the server and the workspace. `server` takes startCodeServer's
 * options (an untrusted folder, the environment, extensions to install), and `proposedApi` workbenchUrl's.
 */
export async function openWindow(
  ws: { folder: string; dispose: () => void },
  server: { untrusted?: boolean; env?: Record<string, string>; extensions?: string[]; proposedApi?: boolean } = {},
): Promise<{ page: Page; close: () => Promise<void> }> {
  const { proposedApi, ...options } = server;
  const started = await startCodeServer({ folder: ws.folder, ...options });
  let browser: Browser | undefined;
  const close = async () => {
    await browser?.close();
    await started.stop();
    ws.dispose();
  };
  try {
    browser = await launchChromium();
    return {
      page: await openWorkbench(
        browser,
        workbenchUrl({ origin: started.origin, port: started.port, folder: ws.folder, extensionPath: ROOT, proposedApi }),
      ),
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}

/**
 * The test extension, bundled beside its manifest, installed into the server's extensions folder:
 * code-server loads one development extension only (of two given, only the last is loaded).
 */
export function buildFakeLm(dir: string): Promise<string> {
  return buildTestExtension('fakeLm', dir);
}

/** A test extension of test/vscode/<name> (its package.json and extension.ts), bundled into `dir` as buildFakeLm does. */
export async function buildTestExtension(name: string, dir: string): Promise<string> {
  mkdirSync(dir, { recursive: true });
  copyFileSync(path.join(ROOT, 'test', 'vscode', name, 'package.json'), path.join(dir, 'package.json'));
  await esbuild.build({
    entryPoints: [path.join(ROOT, 'test', 'vscode', name, 'extension.ts')],
    outfile: path.join(dir, 'extension.js'),
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['vscode'],
    logLevel: 'warning',
  });
  return dir;
}

/**
 * `shoot` in the light theme, then the dark one, each set in the workspace's settings as a user
 * picks one for a project; the settings are then as they were.
 */
export async function inEachTheme(page: Page, folder: string, shoot: (theme: 'light' | 'dark') => Promise<unknown>): Promise<void> {
  const settings = path.join(folder, '.vscode', 'settings.json');
  const saved = readFileSync(settings, 'utf8');
  try {
    for (const [theme, id, kind] of [
      ['light', 'Default Light Modern', 'vs'],
      ['dark', 'Default Dark Modern', 'vs-dark'],
    ] as const) {
      writeFileSync(settings, JSON.stringify({ ...(JSON.parse(saved) as object), 'workbench.colorTheme': id }, null, 2));
      await page.locator(`.monaco-workbench.${kind}`).waitFor({ timeout: 30_000 });
      await shoot(theme);
    }
  } finally {
    writeFileSync(settings, saved);
  }
}
