import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { launch, openWebview, posted, serveDist } from '../test/webview/harness';
import { median } from './measure';
import { syntheticRunState } from './syntheticRun';

/**
 * Posts the prepared run/state and times it. The listener is registered after the webview's
 * own, so it runs once that render returned; the frame after it includes style and layout.
 * Plain JavaScript in a string, so no helper of the TypeScript transpiler leaks into the page.
 */
const RENDER = `(async () => {
  const done = new Promise((resolve) => window.addEventListener('message', () => resolve(performance.now()), { once: true }));
  const t0 = performance.now();
  window.postMessage(window.__message, '*');
  const tDom = await done;
  const rendered = document.querySelectorAll('#attempts .attempt').length;
  await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
  return { dom: tDom - t0, frame: performance.now() - t0, rendered };
})()`;

export interface WebviewRender {
  attempts: number;
  messageBytes: number;
  /** From posting run/state to the webview's handler returning: zod parse, diffs, DOM built. */
  domMs: number[];
  /** Past that, to the next animation frame: style, layout and paint of what was built. */
  frameMs: number[];
  domMedianMs: number;
  frameMedianMs: number;
}

/** Renders a run of `attempts` attempts in headless Chromium, `repeats` times on fresh pages. */
export async function measureWebviewRender(repoRoot: string, attempts: number, repeats: number): Promise<WebviewRender> {
  if (!existsSync(path.join(repoRoot, 'dist', 'webview.js'))) throw new Error('dist/webview.js is missing: run npm run build');
  const message = await syntheticRunState(attempts, repoRoot);
  // The webview tests' harness: dist/ on the loopback under the real CSP, Chromium with the
  // agreed flags, and a stand-in for acquireVsCodeApi (the webview never imports vscode).
  const { origin, server } = await serveDist();
  const browser = await launch();
  const domMs: number[] = [];
  const frameMs: number[] = [];
  try {
    for (let k = 0; k < repeats; k++) {
      const { page, problems } = await openWebview(browser, origin);
      // The host sends nothing before `ready`, so neither does the bench.
      for (
        const deadline = Date.now() + 20_000;
        !(await posted(page)).some((m) => (m as { type?: string }).type === 'ready');
        await page.waitForTimeout(20)
      ) {
        if (Date.now() > deadline) throw new Error(`the webview never posted ready${problems.length ? `: ${problems.join('; ')}` : ''}`);
      }
      await page.evaluate((m) => ((window as unknown as { __message: unknown }).__message = m), message);
      const r = await page.evaluate<{ dom: number; frame: number; rendered: number }>(RENDER);
      await page.close();
      if (problems.length || r.rendered !== attempts)
        throw new Error(`the webview rendered ${r.rendered} of ${attempts} attempts${problems.length ? `: ${problems.join('; ')}` : ''}`);
      domMs.push(r.dom);
      frameMs.push(r.frame);
    }
  } finally {
    await browser.close();
    server.close();
  }
  return {
    attempts,
    messageBytes: JSON.stringify(message).length,
    domMs,
    frameMs,
    domMedianMs: median(domMs),
    frameMedianMs: median(frameMs),
  };
}
