import { existsSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { startRun } from '../src/core';
import { reduceRun } from '../src/core/run/reducer';
import type { RunEvent } from '../src/core/schema/events';
import { runStage } from '../src/core/run/views/stage';
import { timelineOf } from '../src/core/run/views/timeline';
import type { HostMessage } from '../src/shared/protocol';
import { wireNodeDeps } from '../src/node/wire';
import { disposeDeps } from '../src/node/runResources';
import { copyFixture } from '../test/support/tempWorkspace';
import { launch, openWebview, posted, serveDist } from '../test/webview/harness';
import { median } from './measure';

const TICKET = '.tickets/BLOG-1.ticket.json';
/** The run panel's coalescing of bursts of events before it posts (src/vscode/runPanel.ts). */
const HOST_DEBOUNCE_MS = 60;

export interface FirstEvent {
  /** From the start command (dependencies wired, startRun called) to the first event of the log. */
  coreMs: number[];
  /** From the page's navigation start to its `ready` (the page's own clock), as a panel opened with the run loads. */
  pageReadyMs: number[];
  /** From posting the first run/state to its timeline row on screen (the next frame). */
  renderMs: number[];
  /** Per sample: the run's start to the row on screen, the page loading while the run starts, plus the host's coalescing. */
  totalMs: number[];
  totalMedianMs: number;
}

/** Waits for the page to post `ready`: the host sends nothing before it. */
async function ready(page: import('playwright-core').Page): Promise<void> {
  for (
    const deadline = Date.now() + 20_000;
    !(await posted(page)).some((m) => (m as { type?: string }).type === 'ready');
    await page.waitForTimeout(5)
  ) {
    if (Date.now() > deadline) throw new Error('the webview never posted ready');
  }
}

const SHOW = `(async () => {
  const t0 = performance.now();
  window.postMessage(window.__message, '*');
  while (!document.querySelector('#timeline li')) await new Promise((r) => setTimeout(r, 1));
  await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
  return performance.now() - t0;
})()`;

/**
 * The first event of a run on screen, in its parts: the core starting a real run on the fixture
 * (scripted model, the same wiring as the CLI), the panel's page loading in headless Chromium
 * under its real CSP (it opens with the run, so the two overlap), the host's coalescing, and the
 * webview showing the first run/state. The editor's extension host is not in the loop: the
 * figure leaves out its message hop.
 */
export async function measureFirstEvent(repoRoot: string, repeats: number): Promise<FirstEvent> {
  if (!existsSync(`${repoRoot}/dist/webview.js`)) throw new Error('dist/webview.js is missing: run npm run build');
  const { origin, server } = await serveDist();
  const browser = await launch();
  const out: FirstEvent = { coreMs: [], pageReadyMs: [], renderMs: [], totalMs: [], totalMedianMs: 0 };
  try {
    for (let k = 0; k < repeats; k++) {
      const fixture = copyFixture();
      const controller = new AbortController();
      let first: { at: number; event: RunEvent } | undefined;
      let resolveFirst!: () => void;
      const gotFirst = new Promise<void>((r) => (resolveFirst = r));
      try {
        const t0 = performance.now();
        const deps = await wireNodeDeps({
          workspaceRoot: fixture.root,
          model: 'scripted',
          ticketPath: TICKET,
          env: {},
          onEvent: (e) => {
            if (first) return;
            first = { at: performance.now(), event: e };
            resolveFirst();
            controller.abort();
          },
        });
        const running = startRun(deps, { ticketPath: TICKET, signal: controller.signal }).catch(() => undefined);
        const { page } = await openWebview(browser, origin);
        await ready(page);
        // The page's clock starts at its navigation: the browser's own start-up is not the panel's.
        const pageReady = await page.evaluate<number>(() => (window as unknown as { __postedAt: number[] }).__postedAt[0]!);
        await gotFirst;
        const event = first!.event;
        const state = reduceRun(event.runId, [event]);
        const message: HostMessage = {
          type: 'run/state',
          state,
          timeline: timelineOf([event]),
          blobs: {},
          quotes: [],
          mode: 'live',
          position: { seq: 0, total: 1 },
          canDecide: false,
          stage: runStage(state, [event]),
          canCancel: true,
        };
        await page.evaluate((m) => ((window as unknown as { __message: unknown }).__message = m), message);
        const render = await page.evaluate<number>(SHOW);
        await page.close();
        await running;
        await disposeDeps(deps);
        const core = first!.at - t0;
        out.coreMs.push(core);
        out.pageReadyMs.push(pageReady);
        out.renderMs.push(render);
        // The page loads while the core starts; the row shows once both are there.
        out.totalMs.push(Math.max(core, pageReady) + HOST_DEBOUNCE_MS + render);
      } finally {
        fixture.dispose();
      }
    }
  } finally {
    await browser.close();
    server.close();
  }
  out.totalMedianMs = median(out.totalMs);
  return out;
}
