import { readFileSync, readdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { decodeLog } from '../../src/core/run/logCodec';
import { reduceRun } from '../../src/core/run/reducer';
import type { HostMessage } from '../../src/shared/protocol';
import { attemptBlobHashes, quoteLocations, timelineOf } from '../../src/core/run/views/timeline';
import { runStage } from '../../src/core/run/views/stage';
import { proposalTestsOf } from '../../src/core/stages/router/proposalTests';
import { webviewHtml } from '../../src/vscode/webviewHtml';

export const REPO = path.resolve(__dirname, '..', '..');
const DIST = path.join(REPO, 'dist');
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Serves dist/ on the loopback, so the page loads the real bundle under the real CSP. */
export async function serveDist(): Promise<{ origin: string; server: Server }> {
  const types: Record<string, string> = { '.js': 'text/javascript', '.css': 'text/css', '.ttf': 'font/ttf', '.html': 'text/html' };
  const pages = new Map<string, string>();
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/favicon.ico') return void res.writeHead(204).end();
    const page = pages.get(url.pathname);
    if (page) {
      res.writeHead(200, { 'content-type': 'text/html' }).end(page);
      return;
    }
    const file = path.join(DIST, path.normalize(url.pathname).replace(/^[/\\]+/, ''));
    if (!file.startsWith(DIST)) return void res.writeHead(403).end();
    let body: Buffer;
    try {
      body = readFileSync(file);
    } catch {
      return void res.writeHead(404).end();
    }
    res.writeHead(200, { 'content-type': types[path.extname(file)] ?? 'application/octet-stream' }).end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  pages.set(
    '/webview.html',
    webviewHtml({
      cspSource: origin,
      nonce: 'testNonce0123456789abcdefABCDEF00',
      scriptUri: `${origin}/webview.js`,
      styleUri: `${origin}/webview.css`,
      codiconUri: `${origin}/codicons/codicon.css`,
      title: 'test',
    }),
  );
  pages.set(
    '/stats.html',
    webviewHtml({
      cspSource: origin,
      nonce: 'testNonce0123456789abcdefABCDEF00',
      scriptUri: `${origin}/statsView.js`,
      styleUri: `${origin}/webview.css`,
      codiconUri: `${origin}/codicons/codicon.css`,
      title: 'test',
    }),
  );
  return { origin, server };
}

export function launch(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
}

/** A page with a stand-in acquireVsCodeApi that records what the webview posts and saves. */
export async function openWebview(
  browser: Browser,
  origin: string,
  initialState?: unknown,
  page_ = '/webview.html',
): Promise<{ page: Page; problems: string[] }> {
  // A context of its own (axe-core's Playwright builder needs one), closed with the page.
  const context = await browser.newContext({ viewport: { width: 1000, height: 1200 } });
  const page = await context.newPage();
  page.once('close', () => void context.close());
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(m.text());
  });
  page.on('pageerror', (e) => problems.push(e.message));
  // A string, not a function: the test transpiler would wrap a function's names in helpers the page lacks.
  await page.addInitScript(`
    window.__posted = [];
    window.__postedAt = [];
    window.__state = ${JSON.stringify(initialState ?? null)} ?? undefined;
    window.acquireVsCodeApi = () => ({
      postMessage: (m) => { window.__postedAt.push(performance.now()); window.__posted.push(JSON.parse(JSON.stringify(m))); },
      getState: () => window.__state,
      setState: (s) => { window.__state = s; },
    });
  `);
  await page.goto(`${origin}${page_}`);
  return { page, problems };
}

export const posted = (page: Page) => page.evaluate(() => (window as unknown as { __posted: unknown[] }).__posted);
export const savedState = (page: Page) => page.evaluate(() => (window as unknown as { __state: unknown }).__state);
export const send = (page: Page, message: unknown) => page.evaluate((m) => window.postMessage(m, '*'), message);

/** The host's `run/state` for a recorded run, built by the same functions the extension uses. */
export async function recordedRunState(
  name: string,
  opts: { mode?: 'live' | 'replay'; upTo?: number; canDecide?: boolean; canCancel?: boolean } = {},
): Promise<Extract<HostMessage, { type: 'run/state' }>> {
  const dir = path.join(__dirname, 'fixtures', name);
  const all = decodeLog(readFileSync(path.join(dir, 'events.jsonl'), 'utf8'), name).events;
  const upTo = opts.upTo ?? all.length - 1;
  const events = all.filter((e) => e.seq <= upTo);
  const runId = all[0]!.runId;
  const state = reduceRun(runId, events);
  const blobFiles = new Set(readdirSync(path.join(dir, 'blobs')));
  const blob = async (h: string) => (blobFiles.has(h) ? readFileSync(path.join(dir, 'blobs', h), 'utf8') : null);
  const blobs: Record<string, string> = {};
  for (const h of attemptBlobHashes(state)) {
    const b = await blob(h);
    if (b !== null) blobs[h] = b;
  }
  const fixtureRoot = path.join(REPO, 'test', 'fixtures', 'blog-api');
  const readWorkspace = async (p: string) => {
    try {
      return readFileSync(path.join(fixtureRoot, p), 'utf8');
    } catch {
      return null;
    }
  };
  return {
    type: 'run/state',
    state,
    timeline: timelineOf(events),
    blobs,
    quotes: await quoteLocations(state, blob, readWorkspace),
    mode: opts.mode ?? 'live',
    position: { seq: upTo, total: all.length },
    canDecide: opts.canDecide ?? true,
    proposalTests: proposalTestsOf(state),
    ...((opts.mode ?? 'live') === 'live' ? { stage: runStage(state, events), canCancel: opts.canCancel ?? false } : {}),
  };
}

/** Registers the suite's hooks: dist/ served and one Chromium for all its tests, both closed after. */
export function sharedBrowser(): { readonly browser: Browser; readonly origin: string } {
  const shared = {} as { browser: Browser; origin: string; server?: Server };
  before(async () => {
    const served = await serveDist();
    shared.origin = served.origin;
    shared.server = served.server;
    shared.browser = await launch();
  });
  after(async () => {
    await shared.browser?.close();
    shared.server?.close();
  });
  return shared;
}
