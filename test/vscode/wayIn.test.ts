import { strict as assert } from 'node:assert';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { buildFakeLm, inEachTheme, openWindow, pickItem, quickOpen, ROOT, runFromPalette, runWebview, tempWorkspace } from './workbench';

const SHOTS = path.join(ROOT, 'test-results');

/** The lines of every run log of the workspace, oldest run first. */
function runLogs(folder: string): string[][] {
  const dir = path.join(folder, '.ticket-runner', 'runs');
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .sort()
    .map((id) => path.join(dir, id, 'events.jsonl'))
    .map((f) => (existsSync(f) ? readFileSync(f, 'utf8').split('\n').filter(Boolean) : []));
}

/**
 * A new user's first minutes, in a real VS Code: a window whose model setting is Anthropic, with no
 * key and no chat model. The walkthrough is offered; the empty runs view says what a run needs; Run
 * Ticket asks for a way in with a button for each, and the recorded sample runs a ticket to a pass.
 */
/** VS Code's modal dialog, which is DOM in code-server. */
const dialog = () => page.locator('.monaco-dialog-box');
const buttonsOf = async (box: Locator) => (await box.locator('.dialog-buttons .monaco-button').allInnerTexts()).map((t) => t.trim());
let page: Page;

describe('a way in, in code-server with no key and no chat model', function () {
  this.timeout(420_000);
  let close: (() => Promise<void>) | undefined;
  const ws = tempWorkspace({ 'ticketRunner.model': 'anthropic' });

  before(async () => {
    mkdirSync(SHOTS, { recursive: true });
    // A ticket of the user's own, with no recorded answers (written before the window opens, so Quick Open lists it).
    const blog2 = JSON.parse(readFileSync(path.join(ws.folder, '.tickets', 'BLOG-2.ticket.json'), 'utf8')) as Record<string, unknown>;
    writeFileSync(path.join(ws.folder, '.tickets', 'MINE-1.ticket.json'), JSON.stringify({ ...blog2, id: 'MINE-1' }, null, 2));
    // No key from the environment either: the window has none at all.
    ({ page, close } = await openWindow(ws, { env: { ANTHROPIC_API_KEY: '' } }));
  });
  after(async () => close?.());

  it('offers the walkthrough in a notification; the walkthrough opens on its first step, the three ways to a model', async () => {
    const offer = page.locator('.notification-toast', { hasText: 'The walkthrough shows the ways to choose one' });
    await offer.waitFor({ timeout: 90_000 });
    assert.match(await offer.innerText(), /no Anthropic API key is set/);
    await offer.locator('.monaco-button', { hasText: 'Open Walkthrough' }).click();
    const walkthrough = page.locator('.gettingStartedContainer');
    await walkthrough.locator('text=Get Started with Ticket Runner').first().waitFor({ timeout: 30_000 });
    const step = walkthrough.locator('.getting-started-step.expanded');
    await step.waitFor({ timeout: 30_000 });
    assert.match(await step.innerText(), /Choose a model/);
    const buttons = (await step.locator('.monaco-button').allInnerTexts()).map((t) => t.trim());
    assert.deepEqual(buttons, ['Set Anthropic API Key', "Use the Editor's Chat Model", 'Try the Recorded Sample']);
    // The step's media: the markdown page of the three ways, shipped in the extension.
    await page
      .frameLocator('.gettingStartedContainer iframe.webview.ready')
      .frameLocator('iframe#active-frame')
      .locator('text=An Anthropic API key.')
      .waitFor({ timeout: 30_000 });
    await page.screenshot({ path: path.join(SHOTS, 'way-in-walkthrough.png') });
    // A step's picture is a file of the extension, and it loads.
    await walkthrough.locator('.getting-started-step', { hasText: 'Run it' }).first().click();
    const picture = walkthrough.locator('img[alt^="A run in the run view"]');
    await picture.waitFor({ timeout: 30_000 });
    await page.waitForFunction(
      (img) => img && (img as HTMLImageElement).complete && (img as HTMLImageElement).naturalWidth > 0,
      await picture.elementHandle(),
      { timeout: 30_000 },
    );
    // The focus back on the page's title, where F1 reaches the palette.
    await walkthrough.locator('text=Get Started with Ticket Runner').first().click();
    await runFromPalette(page, 'View: Close All Editors');
  });

  it('the empty runs view says that a run needs a model, with a link for each way in', async () => {
    await runFromPalette(page, 'Ticket Runner: Focus on Runs View');
    const sidebar = page.locator('.part.sidebar');
    const welcome = sidebar.locator('.welcome-view-content');
    await welcome.locator('text=A run needs a model').waitFor({ timeout: 30_000 });
    const links = (await welcome.locator('.monaco-button').allInnerTexts()).map((t) => t.trim());
    assert.deepEqual(links, ['Set Anthropic API Key', "Use the Editor's Chat Model", 'Try the Recorded Sample']);
    assert.doesNotMatch(await welcome.innerText(), /Run Ticket/, 'no Run Ticket button while no model can run');
    await sidebar.screenshot({ path: path.join(SHOTS, 'way-in-runs-view.png') });
  });

  it('Draft Ticket from Text asks for a model before its questions, with the two ways that can draft', async () => {
    await runFromPalette(page, 'Ticket Runner: Draft Ticket from Text');
    const question = dialog();
    await question.waitFor({ timeout: 60_000 });
    assert.match(await question.innerText(), /Ticket Runner needs a model to draft a ticket/);
    assert.deepEqual((await buttonsOf(question)).sort(), ['Cancel', 'Set Anthropic API Key', "Use the Editor's Chat Model"]);
    assert.equal(await page.locator('.quick-input-widget').isVisible(), false, 'no question about the text before the model');
    // Cancelled: the draft stops there, and asks nothing more.
    await question.locator('.monaco-button', { hasText: 'Cancel' }).click();
    await question.waitFor({ state: 'detached', timeout: 10_000 });
    await page.waitForTimeout(1_000);
    assert.equal(await page.locator('.quick-input-widget').isVisible(), false, 'the draft asks nothing once the question is closed');
  });

  it('Run Ticket with no key offers the three ways as buttons; the recorded sample runs BLOG-1, and it passes', async () => {
    const before = runLogs(ws.folder).length;
    await runFromPalette(page, 'Ticket Runner: Run Ticket');
    const question = dialog();
    await question.waitFor({ timeout: 60_000 });
    const text = await question.innerText();
    assert.match(text, /Ticket Runner needs a model to run a ticket, and no Anthropic API key is set/);
    assert.deepEqual((await buttonsOf(question)).sort(), [
      'Cancel',
      'Set Anthropic API Key',
      'Try the Recorded Sample',
      "Use the Editor's Chat Model",
    ]);
    assert.doesNotMatch(text, /--model|ticketRunner\./, 'settings and commands, no flags or ids');
    assert.equal(runLogs(ws.folder).length, before, 'no run started before a model was chosen');
    await page.screenshot({ path: path.join(SHOTS, 'way-in-no-key.png') });

    await question.locator('.monaco-button', { hasText: 'Try the Recorded Sample' }).click();
    await pickItem(page, 'BLOG-1');
    const end = Date.now() + 240_000;
    let log: string[] | undefined;
    while (!(log = runLogs(ws.folder)[before])?.some((l) => l.includes('"type":"run.finished"'))) {
      if (Date.now() > end) throw new Error(`the sample run did not finish: ${(log ?? []).map((l) => l.slice(0, 200)).join('\n')}`);
      await page.waitForTimeout(500);
    }
    assert.match(
      log.find((l) => l.includes('"type":"run.started"'))!,
      /"scripted":true/,
      'the recorded answers ran it',
    );
    assert.match(
      log.find((l) => l.includes('"type":"run.finished"'))!,
      /"outcome":"passed"/,
      log.slice(-5).join('\n'),
    );
    // The setting is as the user left it: the sample was one run, not a change of model.
    assert.match(readFileSync(path.join(ws.folder, '.vscode', 'settings.json'), 'utf8'), /"ticketRunner.model": "anthropic"/);
    await page.locator('.notification-toast', { hasText: 'BLOG-1' }).first().waitFor({ timeout: 60_000 });
    await runWebview(page).locator('#status[data-status="passed"]').waitFor({ timeout: 30_000 });
    await page.screenshot({ path: path.join(SHOTS, 'way-in-sample-passed.png') });
  });

  /**
   * Run Ticket in a workspace that replays the sample: no question about the model, the sample's
   * list, and, when an earlier run changed the sample, one question that rolls it back. Resolves
   * with the new run's log once it ends as `ends` says (a correction is accepted on the run page).
   */
  async function runSample(ticket: string, earlier: string | undefined, ends: 'passed' | 'corrected'): Promise<string[]> {
    const before = runLogs(ws.folder).length;
    await runFromPalette(page, 'Ticket Runner: Run Ticket');
    // The way, chosen once, is not asked again: the sample's list comes, and no dialog.
    await page.locator('.quick-input-widget', { hasText: 'Try the Recorded Sample' }).waitFor({ timeout: 60_000 });
    assert.equal(await dialog().isVisible(), false, 'no question about the model');
    await pickItem(page, ticket);
    if (earlier) {
      await dialog().waitFor({ timeout: 60_000 });
      const text = await dialog().innerText();
      assert.match(
        text,
        new RegExp(
          `changed the sample, and ${ticket}'s recorded answers were made on the sample as it came: roll it back, then run ${ticket}\\?`,
        ),
      );
      assert.match(text, new RegExp(`^${earlier}'s (earlier )?run`, 'm'), `names ${earlier}'s run: ${text}`);
      assert.doesNotMatch(text, /\d{8}-\d{6}-[0-9a-f]{6}/, 'no run id');
      assert.deepEqual((await buttonsOf(dialog())).sort(), ['Cancel', 'Roll Back and Run'], 'one confirmation, and no Run Anyway');
      if (ticket === 'BLOG-4' && earlier === 'BLOG-5')
        await inEachTheme(page, ws.folder, (theme) => page.screenshot({ path: path.join(SHOTS, `sample-again-question-${theme}.png`) }));
      await dialog().locator('.monaco-button', { hasText: 'Roll Back and Run' }).click();
    } else assert.equal(await dialog().isVisible(), false, 'nothing to roll back, nothing asked');
    const done = (outcome: string) => (l: string) => l.includes('"type":"run.finished"') && l.includes(`"outcome":"${outcome}"`);
    const until = async (what: string, test: (log: string[]) => boolean): Promise<string[]> => {
      const end = Date.now() + 240_000;
      for (;;) {
        const log = runLogs(ws.folder)[before];
        if (log && test(log)) return log;
        const last = log?.filter((l) => l.includes('"type":"run.finished"')).pop();
        if (last && !/"outcome":"(passed|needsOperator)"/.test(last)) throw new Error(`${ticket} ended otherwise: ${last.slice(0, 600)}`);
        if (Date.now() > end) throw new Error(`${ticket}: ${what} did not come: ${(log ?? []).slice(-3).join('\n').slice(0, 600)}`);
        await page.waitForTimeout(500);
      }
    };
    if (ends === 'corrected') {
      await until('the correction request', (log) => log.some(done('needsOperator')));
      await runWebview(page).locator('#accept').click();
    }
    const log = await until('a pass', (log) => log.some(done('passed')));
    assert.match(
      log.find((l) => l.includes('"type":"run.started"'))!,
      /"scripted":true/,
      'replayed from the recording',
    );
    return log;
  }

  it('the sample, once chosen, is not asked again: its three tickets run twice each, in a varied order, and each ends as recorded', async () => {
    // Each run after the first finds the run before it in the sample, and rolls it back with one confirmation.
    await runSample('BLOG-5', 'BLOG-1', 'passed');
    await runSample('BLOG-4', 'BLOG-5', 'corrected');
    await runSample('BLOG-1', 'BLOG-4', 'passed');
    await runSample('BLOG-4', 'BLOG-1', 'corrected');
    await runSample('BLOG-5', 'BLOG-4', 'passed');
    // Every earlier run was rolled back, and the last one's change is the only one in the sample.
    const logs = runLogs(ws.folder);
    const rolledBack = logs.filter((log) => log.some((l) => l.includes('"type":"run.rolledBack"'))).length;
    assert.equal(rolledBack, logs.length - 1, 'each run but the last was rolled back');
  });

  it('the status bar says the way, and offers the three to change it', async () => {
    const item = page.locator('.statusbar-item', { hasText: 'Recorded Sample' });
    await item.waitFor({ timeout: 30_000 });
    await inEachTheme(page, ws.folder, async (theme) => {
      await page.mouse.move(700, 450);
      await page.screenshot({ path: path.join(SHOTS, `sample-status-${theme}.png`) });
    });
    await item.click();
    const pick = page.locator('.quick-input-widget', { hasText: 'how do tickets run in this workspace?' });
    await pick.waitFor({ timeout: 30_000 });
    const rows = pick.locator('.monaco-list-row');
    assert.deepEqual(
      (await rows.locator('.label-name').allInnerTexts()).map((t) => t.trim()),
      ['Set Anthropic API Key', "Use the Editor's Chat Model", 'Try the Recorded Sample'],
    );
    assert.deepEqual(
      (await rows.allInnerTexts()).map((t) => /current/.test(t)),
      [false, false, true],
      'the way chosen is marked as the current one',
    );
    await page.keyboard.press('Escape');
  });

  it("a user's own ticket with no recording is never swapped for a sample ticket: Run Ticket says why, and runs nothing", async () => {
    await quickOpen(page, 'MINE-1.ticket.json');
    const before = runLogs(ws.folder).length;
    await runFromPalette(page, 'Ticket Runner: Run Ticket');
    await dialog().waitFor({ timeout: 60_000 });
    const text = await dialog().innerText();
    assert.match(text, /MINE-1 has no recorded answers, so the recorded sample cannot run it\./);
    assert.deepEqual((await buttonsOf(dialog())).sort(), [
      'Cancel',
      'Pick a Recorded Ticket',
      'Set Anthropic API Key',
      "Use the Editor's Chat Model",
    ]);
    assert.equal(await dialog().locator('.codicon-error').count(), 0, 'a question, not an error');
    await inEachTheme(page, ws.folder, (theme) => page.screenshot({ path: path.join(SHOTS, `sample-own-ticket-${theme}.png`) }));
    await dialog().locator('.monaco-button', { hasText: 'Cancel' }).click();
    await dialog().waitFor({ state: 'detached', timeout: 10_000 });
    await page.waitForTimeout(2_000);
    assert.equal(await page.locator('.quick-input-widget').isVisible(), false, 'no list of the sample offered in its place');
    assert.equal(runLogs(ws.folder).length, before, 'no run started');
    assert.equal(await page.locator('.tab', { hasText: 'Run Ticket' }).count(), 0, 'no empty run tab left behind');
  });
});

/**
 * The same window with chat models the editor offers (the fake provider of lm.test.ts): Use the
 * Editor's Model lists them, and the one picked becomes the model setting, where the user had set it.
 */
describe("a way in, in code-server with no key and the editor's chat models", function () {
  this.timeout(300_000);
  let close: (() => Promise<void>) | undefined;
  const ws = tempWorkspace({ 'ticketRunner.model': 'anthropic' });

  before(async () => {
    const fakeLm = await buildFakeLm(path.join(ws.base, 'ticket-runner-tests.fake-lm-0.0.1'));
    ({ page, close } = await openWindow(ws, { env: { ANTHROPIC_API_KEY: '' }, extensions: [fakeLm], proposedApi: true }));
  });
  after(async () => close?.());

  it("Use the Editor's Model offers the chat models and sets the one picked, then the run goes on to its ticket", async () => {
    const settings = path.join(ws.folder, '.vscode', 'settings.json');
    await runFromPalette(page, 'Ticket Runner: Run Ticket');
    await dialog().waitFor({ timeout: 60_000 });
    await dialog().locator('.monaco-button', { hasText: "Use the Editor's Chat Model" }).click();
    await pickItem(page, 'Fake plain');
    const end = Date.now() + 30_000;
    // Both settings, written one after the other.
    while (
      !/"ticketRunner.model": "vscode-lm"[\s\S]*"ticketRunner.lmFamily": "fake-plain"|"ticketRunner.lmFamily": "fake-plain"[\s\S]*"ticketRunner.model": "vscode-lm"/.test(
        readFileSync(settings, 'utf8'),
      )
    ) {
      if (Date.now() > end)
        throw new Error(
          `the setting did not change: ${readFileSync(settings, 'utf8')}\nthe notifications: ${(await page.locator('.notification-toast').allInnerTexts()).join(' | ')}`,
        );
      await page.waitForTimeout(250);
    }
    // The model can run now: the ticket list comes, as it would have with a model set from the start.
    await page.locator('.quick-input-widget', { hasText: 'Ticket Runner: Run Ticket' }).waitFor({ timeout: 60_000 });
    await page.keyboard.press('Escape');
  });
});
