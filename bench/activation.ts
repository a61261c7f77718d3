import { cpSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Page } from 'playwright-core';
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
  /**
   * "Open Run" again, after its first view was closed: the window's second webview, with nothing
   * running. In code-server every webview after a window's first waits for VS Code's webview
   * service worker to be registered again (one per webview, all on one origin), which is the
   * floor under a later run view's first event.
   */
  laterWebviewRenderMs: number[];
  /** As firstEventMs, with the ticket list read for PICK_READ_MS before the choice, as a person reads it. */
  firstEventReadMs: number[];
  firstEventReadMedianMs: number;
}

/** How long the second Run Ticket leaves its list open before the choice: a person reads the list. */
export const PICK_READ_MS = 1500;

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

/** The log of the newest run besides those in `known`. */
function newRunLog(folder: string, known: readonly string[]): { id: string; lines: string[] } {
  const runs = path.join(folder, '.ticket-runner', 'runs');
  const id = readdirSync(runs).find((n) => !known.includes(n) && existsSync(path.join(runs, n, 'events.jsonl')));
  if (!id) throw new Error('Run Ticket left no run log');
  return {
    id,
    lines: readFileSync(path.join(runs, id, 'events.jsonl'), 'utf8')
      .trim()
      .split('\n'),
  };
}

/** When the new run's log says it started. */
function runStartedAt(folder: string, known: readonly string[]): number {
  return Date.parse((JSON.parse(newRunLog(folder, known).lines[0]!) as { ts: string }).ts);
}

/** Waits for the new run to finish, so the next one starts on a machine it does not share; its id. */
async function runFinished(folder: string, known: readonly string[]): Promise<string> {
  for (const end = Date.now() + 120_000; Date.now() < end; await new Promise((r) => setTimeout(r, 250))) {
    const log = newRunLog(folder, known);
    if (log.lines.some((l) => l.includes('"type":"run.finished"'))) return log.id;
  }
  throw new Error('the run did not finish within 120 s');
}

/** "Run Ticket" on FIRST_EVENT_TICKET, timed from choosing it (after `readMs` with the list open) to its first event drawn. */
async function timeRunTicket(page: Page, readMs: number): Promise<{ ms: number; startedAt: number }> {
  await runFromPalette(page, 'Ticket Runner: Run Ticket');
  await page.locator('.quick-input-widget input').fill(FIRST_EVENT_TICKET);
  await page.locator('.quick-input-list .monaco-list-row.focused', { hasText: FIRST_EVENT_TICKET }).first().waitFor({ timeout: 30_000 });
  if (readMs) await page.waitForTimeout(readMs);
  const started = performance.now();
  const startedAt = Date.now();
  await page.keyboard.press('Enter');
  await runWebview(page).locator('#timeline li').first().waitFor({ timeout: 30_000 });
  return { ms: performance.now() - started, startedAt };
}

async function closeWebviews(page: Page): Promise<void> {
  await runFromPalette(page, 'View: Close All Editors');
  await page.locator('iframe.webview').first().waitFor({ state: 'detached', timeout: 15_000 });
}

/** "Open Run" on the recorded run, timed from picking it to its attempts drawn. */
async function timeOpenRun(page: Page, runId: string): Promise<number> {
  await runFromPalette(page, 'Ticket Runner: Open Run');
  // The pick lists runs by ticket (the run id is its description); timed from choosing it.
  await page.locator('.quick-input-list .monaco-list-row.focused', { hasText: runId }).first().waitFor({ timeout: 30_000 });
  const t = performance.now();
  await page.keyboard.press('Enter');
  await runWebview(page).locator('#attempts .attempt').first().waitFor({ timeout: 30_000 });
  return performance.now() - t;
}

/**
 * Activation as VS Code itself reports it: code-server opens the blog-api fixture (its
 * `.tickets` folder is the activation event), and "Developer: Show Running Extensions" shows
 * the extension's activation time (code loading + the activate call). Then the run webview's
 * first render there: "Ticket Runner: Open Run" on a recorded run, timed from picking it to
 * its attempts in the webview. One fresh server per run.
 */
type Sample = {
  ms: number;
  label: string;
  renderMs: number;
  laterRenderMs: number;
  firstEventMs: number;
  runStartedMs: number;
  firstEventReadMs: number;
};

async function activationOnce(repoRoot: string): Promise<Sample> {
  const ws = tempWorkspace();
  const runId = plantRecordedRun(repoRoot, ws.folder);
  const server = await startCodeServer({ folder: ws.folder });
  const browser = await launchChromium();
  try {
    const page = await openWorkbench(
      browser,
      workbenchUrl({ origin: server.origin, port: server.port, folder: ws.folder, extensionPath: repoRoot }),
    );
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
    const renderMs = await timeOpenRun(page, runId);
    // The run's own panel must be the only webview: the recorded run's is closed first.
    await closeWebviews(page);
    const laterRenderMs = await timeOpenRun(page, runId);
    await closeWebviews(page);
    const first = await timeRunTicket(page, 0);
    const runStartedMs = runStartedAt(ws.folder, [runId]) - first.startedAt;
    const firstRun = await runFinished(ws.folder, [runId]);
    await closeWebviews(page);
    const read = await timeRunTicket(page, PICK_READ_MS);
    await runFinished(ws.folder, [runId, firstRun]);
    return { ...activation, renderMs, laterRenderMs, firstEventMs: first.ms, runStartedMs, firstEventReadMs: read.ms };
  } finally {
    await browser.close();
    await server.stop();
    ws.dispose();
  }
}

/** The extension as dist/ holds it, in a real editor: the code-server harness of test/vscode, never a mocked vscode. */
export async function measureActivation(repoRoot: string, runs: number): Promise<Activation> {
  const samples: Sample[] = [];
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
    laterWebviewRenderMs: samples.map((s) => s.laterRenderMs),
    firstEventReadMs: samples.map((s) => s.firstEventReadMs),
    firstEventReadMedianMs: median(samples.map((s) => s.firstEventReadMs)),
  };
}
