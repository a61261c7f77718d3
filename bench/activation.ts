import { cpSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { startCodeServer, workbenchUrl } from '../test/vscode/codeServer';
import { launchChromium, openWorkbench, runFromPalette, runWebview, tempWorkspace } from '../test/vscode/workbench';
import { median } from './measure';

export interface Activation {
  runsMs: number[];
  medianMs: number;
  /** "Startup Activation" when the workspace's `.tickets` folder activated it as the window opened. */
  label: string;
  source: string;
  /** "Open Run" on a recorded run to its attempts drawn in the run webview, in code-server's Chromium. */
  webviewFirstRenderMs: number[];
  webviewFirstRenderMedianMs: number;
  webviewRun: string;
  /** "Run Ticket" on BLOG-5, from choosing the ticket to the run's first event drawn in its webview. */
  firstEventMs: number[];
  firstEventMedianMs: number;
  /** From choosing the ticket to the log's run.started: the rest of firstEventMs is the panel loading and drawing. */
  runStartedMs: number[];
}

/** A recorded run of the webview tests, put where the extension's run store finds it. */
const RECORDED = 'BLOG-1';
/** A ticket that passes in one attempt: its first event is what the figure waits for. */
const FIRST_EVENT_TICKET = 'BLOG-5';

function plantRecordedRun(repoRoot: string, folder: string): string {
  const from = path.join(repoRoot, 'test', 'webview', 'fixtures', RECORDED);
  const runId = (JSON.parse(readFileSync(path.join(from, 'events.jsonl'), 'utf8').split('\n', 1)[0]!) as { runId: string }).runId;
  cpSync(from, path.join(folder, '.ticket-runner', 'runs', runId), { recursive: true });
  return runId;
}

/** When the new run's log says it started (the one run that is not the planted one). */
function runStartedAt(folder: string, planted: string): number {
  const runs = path.join(folder, '.ticket-runner', 'runs');
  const id = readdirSync(runs).find((n) => n !== planted && existsSync(path.join(runs, n, 'events.jsonl')));
  if (!id) throw new Error('Run Ticket left no run log');
  const first = JSON.parse(readFileSync(path.join(runs, id, 'events.jsonl'), 'utf8').split('\n', 1)[0]!) as { ts: string };
  return Date.parse(first.ts);
}

/**
 * Activation as VS Code itself reports it: code-server opens the blog-api fixture (its
 * `.tickets` folder is the activation event), and "Developer: Show Running Extensions" shows
 * the extension's activation time (code loading + the activate call). Then the run webview's
 * first render there: "Ticket Runner: Open Run" on a recorded run, timed from picking it to
 * its attempts in the webview. One fresh server per run.
 */
async function activationOnce(repoRoot: string): Promise<{ ms: number; label: string; renderMs: number; firstEventMs: number; runStartedMs: number }> {
  const ws = tempWorkspace();
  const runId = plantRecordedRun(repoRoot, ws.folder);
  const server = await startCodeServer({ folder: ws.folder });
  const browser = await launchChromium();
  try {
    const page = await openWorkbench(browser, workbenchUrl({ origin: server.origin, port: server.port, folder: ws.folder, extensionPath: repoRoot }));
    // The running-extensions list is virtualized: a tall page keeps every row in the DOM.
    await page.setViewportSize({ width: 1400, height: 8000 });
    const time = page.locator('.runtime-extensions-editor .extension', { hasText: 'ticket-runner' }).first().locator('.activation-time');
    let activation: { ms: number; label: string } | undefined;
    for (const deadline = Date.now() + 60_000; !activation; await page.waitForTimeout(2000)) {
      // Reopened each round: the editor renders what was running when it opened.
      await runFromPalette(page, 'Developer: Show Running Extensions');
      const text = await time.textContent({ timeout: 15_000 }).catch(() => null);
      const ms = /(\d+)ms/.exec(text ?? '');
      if (ms && text) activation = { ms: Number(ms[1]), label: text };
      else if (Date.now() > deadline) throw new Error(`the extension reported no activation time within 60 s (last: ${text ?? 'no row'})`);
    }
    await page.setViewportSize({ width: 1400, height: 900 });
    await runFromPalette(page, 'Ticket Runner: Open Run');
    // The pick lists runs by ticket (the run id is its description); timed from choosing it.
    const row = page.locator('.quick-input-list .monaco-list-row.focused', { hasText: runId }).first();
    await row.waitFor({ timeout: 30_000 });
    const t = performance.now();
    await page.keyboard.press('Enter');
    await runWebview(page).locator('#attempts .attempt').first().waitFor({ timeout: 30_000 });
    const renderMs = performance.now() - t;
    // The run's own panel must be the only webview: the recorded run's is closed first.
    await runFromPalette(page, 'View: Close All Editors');
    await page.locator('iframe.webview').first().waitFor({ state: 'detached', timeout: 15_000 });
    await runFromPalette(page, 'Ticket Runner: Run Ticket');
    const input = page.locator('.quick-input-widget input');
    await input.fill(FIRST_EVENT_TICKET);
    await page.locator('.quick-input-list .monaco-list-row.focused', { hasText: FIRST_EVENT_TICKET }).first().waitFor({ timeout: 30_000 });
    const started = performance.now();
    const startedAt = Date.now();
    await page.keyboard.press('Enter');
    await runWebview(page).locator('#timeline li').first().waitFor({ timeout: 30_000 });
    const firstEventMs = performance.now() - started;
    return { ...activation, renderMs, firstEventMs, runStartedMs: runStartedAt(ws.folder, runId) - startedAt };
  } finally {
    await browser.close();
    await server.stop();
    ws.dispose();
  }
}

/** The extension as dist/ holds it, in a real editor: the code-server harness of test/vscode, never a mocked vscode. */
export async function measureActivation(repoRoot: string, runs: number): Promise<Activation> {
  const samples: { ms: number; label: string; renderMs: number; firstEventMs: number; runStartedMs: number }[] = [];
  for (let k = 0; k < runs; k++) samples.push(await activationOnce(repoRoot));
  const runsMs = samples.map((s) => s.ms);
  const webviewFirstRenderMs = samples.map((s) => s.renderMs);
  return {
    runsMs,
    medianMs: median(runsMs),
    label: samples[0]!.label.replace(/:.*/, ''),
    source: 'code-server (test/vscode harness), Developer: Show Running Extensions',
    webviewFirstRenderMs,
    webviewFirstRenderMedianMs: median(webviewFirstRenderMs),
    webviewRun: `${RECORDED} (test/webview/fixtures): Ticket Runner: Open Run, from picking the run to its first attempt drawn`,
    firstEventMs: samples.map((s) => s.firstEventMs),
    firstEventMedianMs: median(samples.map((s) => s.firstEventMs)),
    runStartedMs: samples.map((s) => s.runStartedMs),
  };
}
