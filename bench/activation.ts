import { startCodeServer, workbenchUrl } from '../test/vscode/codeServer';
import { launchChromium, openWorkbench, runFromPalette, tempWorkspace } from '../test/vscode/workbench';
import { median } from './measure';

export interface Activation {
  runsMs: number[];
  medianMs: number;
  /** "Startup Activation" when the workspace's `.tickets` folder activated it as the window opened. */
  label: string;
  source: string;
}

/**
 * Activation as VS Code itself reports it: code-server opens the blog-api fixture (its
 * `.tickets` folder is the activation event), and "Developer: Show Running Extensions" shows
 * the extension's activation time (code loading + the activate call). One fresh server per run.
 */
async function activationOnce(repoRoot: string): Promise<{ ms: number; label: string }> {
  const ws = tempWorkspace();
  const server = await startCodeServer({ folder: ws.folder });
  const browser = await launchChromium();
  try {
    const page = await openWorkbench(browser, workbenchUrl({ origin: server.origin, port: server.port, folder: ws.folder, extensionPath: repoRoot }));
    // The running-extensions list is virtualized: a tall page keeps every row in the DOM.
    await page.setViewportSize({ width: 1400, height: 8000 });
    const time = page.locator('.runtime-extensions-editor .extension', { hasText: 'ticket-runner' }).first().locator('.activation-time');
    const deadline = Date.now() + 120_000;
    for (;;) {
      // Reopened each round: the editor renders what was running when it opened.
      await runFromPalette(page, 'Developer: Show Running Extensions');
      const text = await time.textContent({ timeout: 15_000 }).catch(() => null);
      const ms = /(\d+)ms/.exec(text ?? '');
      if (ms && text) return { ms: Number(ms[1]), label: text };
      if (Date.now() > deadline) throw new Error(`the extension reported no activation time within 120 s (last: ${text ?? 'no row'})`);
      await page.waitForTimeout(2000);
    }
  } finally {
    await browser.close();
    await server.stop();
    ws.dispose();
  }
}

/** The extension as dist/ holds it, in a real editor: the code-server harness of test/vscode, never a mocked vscode. */
export async function measureActivation(repoRoot: string, runs: number): Promise<Activation> {
  const samples: { ms: number; label: string }[] = [];
  for (let k = 0; k < runs; k++) samples.push(await activationOnce(repoRoot));
  const runsMs = samples.map((s) => s.ms);
  return { runsMs, medianMs: median(runsMs), label: samples[0]!.label.replace(/:.*/, ''), source: 'code-server (test/vscode harness), Developer: Show Running Extensions' };
}
