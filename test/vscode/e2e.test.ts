import { strict as assert } from 'node:assert';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { startCodeServer, workbenchUrl, type CodeServer } from './codeServer';
import { alive, HANGING_TESTS, pidsWith } from '../support/processes';
import { docScreenshot } from '../support/docScreenshot';
import { inEachTheme, launchChromium, openWorkbench, pickItem, ROOT, runFromPalette, runWebview, tempWorkspace } from './workbench';

const TICKET = process.env.E2E_TICKET ?? 'BLOG-2';

/** Every event of every run of the workspace, newest run last. */
function runEvents(folder: string): { runId: string; types: string[] }[] {
  const dir = path.join(folder, '.ticket-runner', 'runs');
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .sort()
    .map((runId) => {
      const file = path.join(dir, runId, 'events.jsonl');
      const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
      return {
        runId,
        types: text
          .split('\n')
          .filter(Boolean)
          .map((l) => (JSON.parse(l) as { type: string }).type),
      };
    });
}

async function until<T>(page: Page, what: string, probe: () => T | undefined | Promise<T | undefined>, ms: number): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await page.waitForTimeout(250);
  }
}

/**
 * End to end, as a person would: the command palette, "Ticket Runner: Run Ticket", the
 * type-migration ticket, the correction request in the webview, Reject (with a reason) on
 * one run and Accept on another; the run log records each decision.
 */
describe('end to end in code-server with Chromium', function () {
  this.timeout(420_000);
  let server: CodeServer | undefined;
  let browser: Browser | undefined;
  let page: Page;
  const ws = tempWorkspace();

  before(async () => {
    const t0 = Date.now();
    server = await startCodeServer({ folder: ws.folder });
    browser = await launchChromium();
    page = await openWorkbench(browser, workbenchUrl({ origin: server.origin, port: server.port, folder: ws.folder, extensionPath: ROOT }));
    console.log(`      workbench up in ${Date.now() - t0} ms`);
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
    ws.dispose();
  });

  /** Until the run numbered `before` starts: when the run asks first about an earlier run's files, they are rolled back. */
  async function rollBackLeftovers(before: number): Promise<void> {
    const question = page.locator('.monaco-dialog-box');
    for (const end = Date.now() + 60_000; !runEvents(ws.folder)[before]; await page.waitForTimeout(250)) {
      if (await question.isVisible()) {
        await question.locator('.monaco-button', { hasText: /^Roll (Back \S+|Them Back) and Run$/ }).click();
        return;
      }
      if (Date.now() > end) throw new Error('timed out waiting for a new run or the question about an earlier run');
    }
  }

  /**
   * `leftover`: the earlier run that did not pass is named before the run starts; this button answers.
   * 'rollBackAny': whatever an earlier test left is rolled back when the question comes, if it does.
   */
  async function runTicketToCorrection(leftover?: { button: string; runId: string } | 'rollBackAny', ticket = TICKET): Promise<string> {
    const before = runEvents(ws.folder).length;
    const t = Date.now();
    await runFromPalette(page, 'Ticket Runner: Run Ticket');
    await pickItem(page, ticket);
    if (leftover === 'rollBackAny') await rollBackLeftovers(before);
    else if (leftover) {
      const dialog = page.locator('.monaco-dialog-box');
      await dialog.waitFor({ timeout: 60_000 });
      const text = await dialog.innerText();
      assert.match(
        text,
        /is still in the workspace \(its run: failed\), and this run would build on it, though the recorded answers were made without it\./,
      );
      assert.match(
        text,
        new RegExp(`${ticket}'s run from (yesterday, )?\\d{2}:\\d{2} \\(`),
        `the dialog names the earlier run by its ticket and time: ${text}`,
      );
      assert.ok(!text.includes(leftover.runId), `the dialog names no run id: ${text}`);
      await dialog.locator('.monaco-button', { hasText: leftover.button }).click();
    }
    const run = await until(page, 'a new run', () => runEvents(ws.folder)[before], 60_000);
    const webview = runWebview(page);
    await webview
      .locator('.correction-box[data-status="pending"]')
      .waitFor({ timeout: 180_000 })
      .catch((err: unknown) => {
        // Say where the run went instead: its events, and how it ended.
        const file = path.join(ws.folder, '.ticket-runner', 'runs', run.runId, 'events.jsonl');
        const lines = existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
        const last = lines
          .filter((l) => /"type":"(run\.finished|router\.routed|debugger\.diagnosed|oracle\.tampered)"/.test(l))
          .map((l) => l.slice(0, 600));
        // The whole log, kept for whoever reads the failure.
        mkdirSync(path.join(ROOT, 'test-results'), { recursive: true });
        writeFileSync(path.join(ROOT, 'test-results', `e2e-${run.runId}.events.jsonl`), lines.join('\n'));
        throw new Error(`${String(err)}\nthe run's events: ${run.types.join(', ')}\n${last.join('\n')}`);
      });
    await webview.locator('#accept').waitFor({ timeout: 60_000 });
    // The run has ended, and its progress notification given way to the announcement, before the
    // test goes on: a quick pick opened while the notifications change hands can close by itself.
    await until(
      page,
      'the run to end',
      () =>
        runEvents(ws.folder)
          .find((r) => r.runId === run.runId)
          ?.types.includes('run.finished')
          ? true
          : undefined,
      60_000,
    );
    await page
      .locator('.notification-toast', { hasText: `${ticket}: ` })
      .first()
      .waitFor({ timeout: 30_000 });
    console.log(`      ${ticket} reached its correction request in ${Date.now() - t} ms (run ${run.runId})`);
    return run.runId;
  }

  let rejected: string | undefined;

  it('Reject, with a reason, is recorded in the run log as correction.rejected', async () => {
    const runId = await runTicketToCorrection();
    rejected = runId;
    const webview = runWebview(page);
    await webview.locator('#reject').click();
    await webview.locator('#reject-reason textarea').fill('The old string tags must stay in the test: the API contract says so.');
    await webview.locator('#reject-confirm:not([disabled])').click();
    await until(
      page,
      'correction.rejected in the log',
      () =>
        runEvents(ws.folder)
          .find((r) => r.runId === runId)
          ?.types.includes('correction.rejected')
          ? true
          : undefined,
      60_000,
    );
    const log = readFileSync(path.join(ws.folder, '.ticket-runner', 'runs', runId, 'events.jsonl'), 'utf8');
    assert.match(log, /"type":"correction\.rejected".*"reason":"The old string tags must stay in the test: the API contract says so\."/);
    await webview.locator('.correction-box[data-status="rejected"]').waitFor({ timeout: 30_000 });
    await runFromPalette(page, 'View: Close All Editors');
  });

  it('Accept, on another run, is recorded as correction.accepted and the run resumes', async () => {
    // The rejected run left its files: the new run names it first, and rolls it back when asked.
    assert.ok(rejected, 'the Reject test ran first');
    const runId = await runTicketToCorrection({ button: `Roll Back ${TICKET} and Run`, runId: rejected });
    assert.ok(
      runEvents(ws.folder)
        .find((r) => r.runId === rejected)
        ?.types.includes('run.rolledBack'),
      'the rejected run was rolled back before the new one started',
    );
    const webview = runWebview(page);
    mkdirSync(path.join(ROOT, 'test-results'), { recursive: true });
    await page
      .locator('iframe.webview.ready')
      .last()
      .screenshot({ path: path.join(ROOT, 'test-results', 'webview.png') });
    await webview.locator('#accept').click();
    await until(
      page,
      'correction.accepted in the log',
      () =>
        runEvents(ws.folder)
          .find((r) => r.runId === runId)
          ?.types.includes('correction.accepted')
          ? true
          : undefined,
      60_000,
    );
    const types = await until(
      page,
      'the resumed run to finish',
      () => {
        const r = runEvents(ws.folder).find((x) => x.runId === runId);
        return r && r.types.lastIndexOf('run.finished') > r.types.indexOf('run.resumed') && r.types.includes('run.resumed')
          ? r.types
          : undefined;
      },
      180_000,
    );
    assert.ok(types.indexOf('correction.accepted') < types.indexOf('run.resumed'));
    await webview.locator('.correction-box[data-status="accepted"]').waitFor({ timeout: 30_000 });
    await page
      .locator('iframe.webview.ready')
      .last()
      .screenshot({ path: path.join(ROOT, 'test-results', 'webview-accepted.png') });
  });

  const logOf = (runId: string) => readFileSync(path.join(ws.folder, '.ticket-runner', 'runs', runId, 'events.jsonl'), 'utf8');
  const decisions = (runId: string) =>
    logOf(runId)
      .split('\n')
      .filter((l) => /"type":"correction\.(accepted|rejected)"/.test(l));
  const dialog = () => page.locator('.monaco-dialog-box');
  /** The modal's buttons, in the order it shows them. */
  const dialogButtons = async () => (await dialog().locator('.dialog-buttons .monaco-button').allInnerTexts()).map((t) => t.trim());

  /** A command of a tree row's menu that asks in a modal: the modal's text once it is up. */
  async function askFromRowMenu(row: Locator, command: string): Promise<string> {
    await row.click({ button: 'right' });
    // Chosen as a keyboard user would: a click can land while the menu is still settling under
    // the pointer, and then the menu stays open with the item merely highlighted.
    await page.locator('.monaco-menu .action-item', { hasText: command }).first().hover();
    await page.keyboard.press('Enter');
    await dialog().waitFor({ timeout: 30_000 });
    return dialog().innerText();
  }

  /** Accept Correction Request from the palette, for the one run that waits; resolves when its modal is up. */
  async function acceptFromPalette(ticket: string): Promise<void> {
    // The run picker has been seen to close by itself right after it opened, under load (the
    // cause is not found yet): picking then fails with nothing decided, so the command is asked
    // for again, and each time it happens is said in the test's output.
    for (let attempt = 1; ; attempt++) {
      await runFromPalette(page, 'Ticket Runner: Accept Correction Request');
      try {
        await pickItem(page, ticket);
        break;
      } catch (err) {
        if (attempt >= 3 || (await dialog().count())) throw err;
        console.log(`      the run picker closed before ${ticket} was picked (attempt ${attempt}); asking again`);
        await page.keyboard.press('Escape');
      }
    }
    await dialog().waitFor({ timeout: 30_000 });
  }

  it('the runs tree at the default sidebar width: a click keeps the arrow keys in the tree, and Roll Back names the run by its ticket and time', async () => {
    await runFromPalette(page, 'View: Close All Editors');
    const runs = runEvents(ws.folder).filter((r) => r.types.includes('correction.accepted'));
    const accepted = runs[runs.length - 1]!.runId;
    await runFromPalette(page, 'Ticket Runner: Focus on Runs View');
    const sidebar = page.locator('.part.sidebar');
    // Two runs of one ticket, told apart by their time; the outcome is in the words a screen reader says.
    const rows = sidebar.locator('.monaco-list-row[aria-label^="BLOG-2, "]');
    await until(page, 'two runs of BLOG-2 in the tree', async () => ((await rows.count()) >= 2 ? true : undefined), 30_000);
    const labels = await rows.evaluateAll((els) => els.map((e) => e.getAttribute('aria-label') ?? ''));
    assert.ok(
      labels.some((l) => l.startsWith('BLOG-2, rolled back, ')),
      labels.join(' | '),
    );
    const texts = (await rows.allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim());
    assert.equal(new Set(texts).size, texts.length, `no two rows read the same: ${texts.join(' | ')}`);
    mkdirSync(path.join(ROOT, 'test-results'), { recursive: true });
    const shoot = (theme: string) =>
      sidebar.screenshot({ path: path.join(ROOT, 'test-results', `runs-tree-${theme}.png`), animations: 'disabled' });
    await page.mouse.move(700, 450); // No hover on a row.
    await inEachTheme(page, ws.folder, shoot);

    // A click opens the run page and leaves the keyboard in the tree: the arrow keys go on through the runs.
    const row = sidebar.locator('.monaco-list-row[aria-label^="BLOG-2, "]:not([aria-label^="BLOG-2, rolled back"])').first();
    await row.click();
    await runWebview(page).locator('.correction-box[data-status="accepted"]').waitFor({ timeout: 30_000 });
    await page.waitForTimeout(1_000); // Time for the page, if it took the focus, to have taken it.
    const focused = () => sidebar.locator('.monaco-list-row.focused[aria-label^="BLOG-2, "]').getAttribute('aria-label');
    const first = await focused();
    // Towards the other run, whichever place the clicked one has.
    const [away, back] = (await row.getAttribute('data-index')) === '0' ? ['ArrowDown', 'ArrowUp'] : ['ArrowUp', 'ArrowDown'];
    await page.keyboard.press(away);
    await until(page, `${away} to move in the tree`, async () => ((await focused()) !== first ? true : undefined), 10_000);
    await page.keyboard.press(back);
    await until(page, `${back} to move back`, async () => ((await focused()) === first ? true : undefined), 10_000);

    // Roll Back from the row's menu: the question and the notification name the run, never by its id.
    const question = await askFromRowMenu(row, 'Roll Back Run');
    assert.match(question, /Roll back BLOG-2's run from (yesterday, )?\d\d:\d\d\? /, question);
    assert.ok(!question.includes(accepted), `the question names no run id: ${question}`);
    await dialog()
      .locator('.monaco-button', { hasText: /^(Roll Back|Overwrite My Changes)$/ })
      .click();
    const toast = page.locator('.notification-toast', { hasText: /BLOG-2's run from (yesterday, )?\d\d:\d\d is rolled back/ }).first();
    await toast.waitFor({ timeout: 60_000 });
    assert.ok(!(await toast.innerText()).includes(accepted), 'the notification names no run id');
    // The page says what is true now: the accepted change was put back, and nothing is "Proposed".
    const box = runWebview(page).locator('.correction-box.rolledBack[data-status="accepted"]');
    await box.waitFor({ timeout: 30_000 });
    assert.doesNotMatch(await box.innerText(), /Proposed/);
    await runFromPalette(page, 'View: Close All Editors');
  });

  it('Accept from the tree or the palette asks in a modal that shows the proposal; Cancel and the diff decide nothing, Accept resumes the run', async () => {
    await runFromPalette(page, 'View: Close All Editors');
    const ticketFile = path.join(ws.folder, '.tickets', 'BLOG-4.ticket.json');
    const runId = await runTicketToCorrection('rollBackAny', 'BLOG-4');
    const ticketBefore = readFileSync(ticketFile, 'utf8');
    const logBefore = logOf(runId);

    // The tree, with the run that waits for the user: the README's picture of it.
    await runFromPalette(page, 'Ticket Runner: Focus on Runs View');
    const sidebar = page.locator('.part.sidebar');
    // The row once the extension's own view of the run has the request (what Accept reads).
    const row = sidebar.locator('.monaco-list-row[aria-label^="BLOG-4, waiting for your decision"]').first();
    await row.waitFor({ timeout: 30_000 });
    // Wide enough for the rows' titles and times, the run unfolded, cropped below its last row.
    const side = (await sidebar.boundingBox())!;
    await page.mouse.move(side.x + side.width, side.y + side.height / 2);
    await page.mouse.down();
    await page.mouse.move(side.x + side.width + 480, side.y + side.height / 2, { steps: 5 });
    await page.mouse.up();
    if ((await row.getAttribute('aria-expanded')) !== 'true') await row.locator('.monaco-tl-twistie').click();
    await sidebar.locator('.monaco-list-row[aria-level="2"]').first().waitFor({ timeout: 10_000 });
    await page.mouse.move(side.x + 20, side.y + side.height - 20); // No hover, no focus ring on a row.
    await docScreenshot(sidebar, 'runs-tree', { bottom: sidebar.locator('.monaco-list-row').last() });

    // (a) From the tree's menu: the modal says what Accept changes, the diff first; Escape leaves all as it was.
    const text = await askFromRowMenu(row, 'Accept Correction Request');
    assert.match(text, /Accept the correction of BLOG-4\?/);
    assert.match(text, /Accept rewrites \.tickets\/BLOG-4\.ticket\.json \(its scope\):/, text);
    assert.match(text, /^\+.*"/m, `the modal shows the added lines: ${text}`);
    // The diff comes first as VS Code orders a modal's choices: it is the primary button, the one
    // that has the focus and that Enter presses (where it sits in the row is the platform's habit).
    const buttons = await dialogButtons();
    assert.deepEqual([...buttons].sort(), ['Accept', 'Cancel', 'Open in Diff Editor'], buttons.join(' | '));
    const primary = dialog().locator('.dialog-buttons .monaco-button:not(.secondary)');
    assert.deepEqual(
      (await primary.allInnerTexts()).map((t) => t.trim()),
      ['Open in Diff Editor'],
    );
    assert.equal(
      await dialog().locator('.dialog-buttons .monaco-button:focus').innerText(),
      'Open in Diff Editor',
      'the diff button has the focus',
    );
    await page.keyboard.press('Escape');
    await dialog().waitFor({ state: 'detached', timeout: 10_000 });
    await page.waitForTimeout(2_000); // Time for a wrong decision to land, if one were made.
    assert.equal(readFileSync(ticketFile, 'utf8'), ticketBefore, 'Cancel left the ticket as it was');
    assert.equal(logOf(runId), logBefore, 'Cancel wrote nothing to the run log');
    await runWebview(page).locator('.correction-box[data-status="pending"]').waitFor({ timeout: 10_000 });

    // The diff: a diff editor opens, the modal asks again, nothing is decided.
    await acceptFromPalette('BLOG-4');
    await page.keyboard.press('Enter'); // The primary button: the diff.
    await page.locator('.monaco-diff-editor').first().waitFor({ timeout: 30_000 });
    assert.ok(await page.locator('.tab', { hasText: 'before ↔ after Accept' }).count(), 'a tab for the diff');
    await dialog().waitFor({ timeout: 30_000 });
    assert.equal(readFileSync(ticketFile, 'utf8'), ticketBefore, 'opening the diff left the ticket as it was');
    assert.deepEqual(decisions(runId), [], 'opening the diff decided nothing');

    // (b) Accept in the modal: the ticket changes as proposed, the log says the user decided, the run goes on.
    await dialog()
      .locator('.monaco-button', { hasText: /^Accept$/ })
      .click();
    await until(page, 'correction.accepted in the log', () => (decisions(runId).length ? true : undefined), 60_000);
    assert.equal(decisions(runId).length, 1);
    assert.match(decisions(runId)[0]!, /"type":"correction\.accepted".*"by":"vscode"/);
    // The decision is logged before the ticket is written, and the write is logged once it is
    // done: under load the editor's write can land seconds after the decision.
    await until(
      page,
      "the ticket's rewrite in the log",
      () => (/"type":"files\.written".*"by":"operator"/.test(logOf(runId)) ? true : undefined),
      60_000,
    );
    assert.notEqual(readFileSync(ticketFile, 'utf8'), ticketBefore, 'Accept rewrote the ticket');
    await until(
      page,
      'the resumed run to finish',
      () => {
        const r = runEvents(ws.folder).find((x) => x.runId === runId);
        return r && r.types.includes('run.resumed') && r.types.lastIndexOf('run.finished') > r.types.indexOf('run.resumed')
          ? true
          : undefined;
      },
      180_000,
    );
    await runFromPalette(page, 'View: Close All Editors');
  });

  it('a second Accept while the modal is open decides once', async () => {
    const runId = await runTicketToCorrection('rollBackAny', 'BLOG-3');
    await acceptFromPalette('BLOG-3');
    // The run view's Accept, pressed while the modal is up (the modal's overlay stops a mouse, not the page's own click).
    await runWebview(page)
      .locator('#accept')
      .evaluate((b: HTMLElement) => b.click());
    await until(page, "the run view's decision in the log", () => (decisions(runId).length ? true : undefined), 60_000);
    await dialog()
      .locator('.monaco-button', { hasText: /^Accept$/ })
      .click();
    await dialog().waitFor({ state: 'detached', timeout: 10_000 });
    // The modal's late Accept is refused in one line, not decided again.
    await page
      .locator('.notification-toast', { hasText: /was already (accepted|decided)[:;] nothing to accept/ })
      .first()
      .waitFor({ timeout: 30_000 })
      .catch(async (err: unknown) => {
        throw new Error(`${String(err)}\nthe notifications: ${(await page.locator('.notification-toast').allInnerTexts()).join(' | ')}`);
      });
    await until(
      page,
      'the resumed run to finish',
      () => {
        const r = runEvents(ws.folder).find((x) => x.runId === runId);
        return r && r.types.includes('run.resumed') && r.types.lastIndexOf('run.finished') > r.types.indexOf('run.resumed')
          ? true
          : undefined;
      },
      180_000,
    );
    await page.waitForTimeout(2_000);
    assert.equal(decisions(runId).length, 1, `one decision: ${decisions(runId).join('\n')}`);
    const types = runEvents(ws.folder).find((x) => x.runId === runId)!.types;
    assert.equal(types.filter((t) => t === 'run.resumed').length, 1, 'the run resumed once');
    await runFromPalette(page, 'View: Close All Editors');
  });

  it("BLOG-1 then BLOG-4 in one window: Run Ticket names BLOG-1's change before BLOG-4, and rolls it back first when asked", async () => {
    await runFromPalette(page, 'View: Close All Editors');
    // BLOG-1 to its pass, on the sample as it ships: what the tests before left is rolled back when asked.
    const before = runEvents(ws.folder).length;
    await runFromPalette(page, 'Ticket Runner: Run Ticket');
    await pickItem(page, 'BLOG-1');
    await rollBackLeftovers(before);
    const blog1 = await until(
      page,
      'BLOG-1 to end',
      () => (runEvents(ws.folder)[before]?.types.includes('run.finished') ? runEvents(ws.folder)[before] : undefined),
      180_000,
    );
    assert.match(logOf(blog1.runId), /"type":"run\.started".*"ticketId":"BLOG-1"/);
    assert.match(logOf(blog1.runId).trim().split('\n').pop()!, /"outcome":"passed"/);
    // Its announcement has come: a quick pick opened while notifications change hands can close by itself.
    await page.locator('.notification-toast', { hasText: 'BLOG-1: ' }).first().waitFor({ timeout: 30_000 });

    const next = runEvents(ws.folder).length;
    await runFromPalette(page, 'Ticket Runner: Run Ticket');
    await pickItem(page, 'BLOG-4');
    await dialog().waitFor({ timeout: 60_000 });
    const text = await dialog().innerText();
    assert.match(
      text,
      /BLOG-1's change is still in the workspace \(its run: passed\), and this run would build on it, though the recorded answers were made without it\./,
      text,
    );
    assert.match(text, /BLOG-1's run from (yesterday, )?\d\d:\d\d \(passed\):/, text);
    assert.ok(!text.includes(blog1.runId), `no run id: ${text}`);
    assert.deepEqual((await dialogButtons()).sort(), ['Cancel', 'Roll Back BLOG-1 and Run', 'Run Anyway']);
    const primary = dialog().locator('.dialog-buttons .monaco-button:not(.secondary)');
    assert.deepEqual(
      (await primary.allInnerTexts()).map((t) => t.trim()),
      ['Roll Back BLOG-1 and Run'],
      'rolling back first is the primary choice',
    );
    mkdirSync(path.join(ROOT, 'test-results'), { recursive: true });
    await page.screenshot({ path: path.join(ROOT, 'test-results', 'e2e-earlier-run-question.png') });
    assert.equal(runEvents(ws.folder).length, next, 'no run starts while the question waits');

    await dialog().locator('.monaco-button', { hasText: 'Roll Back BLOG-1 and Run' }).click();
    const blog4 = await until(page, 'BLOG-4 to start', () => runEvents(ws.folder)[next], 60_000);
    assert.ok(
      runEvents(ws.folder)
        .find((r) => r.runId === blog1.runId)
        ?.types.includes('run.rolledBack'),
      'BLOG-1 was rolled back before BLOG-4 started',
    );
    // On the sample as recorded, BLOG-4 goes as recorded: to its scope correction.
    await until(
      page,
      'BLOG-4 to wait for its correction',
      () =>
        runEvents(ws.folder)
          .find((r) => r.runId === blog4.runId)
          ?.types.includes('correction.requested')
          ? true
          : undefined,
      180_000,
    );
    await runWebview(page).locator('.correction-box[data-status="pending"]').waitFor({ timeout: 60_000 });
    await runFromPalette(page, 'View: Close All Editors');
  });

  it('a window reload mid-run cancels the run: its tests are killed and its log ends with run.finished cancelled', async () => {
    // Tests that never end, so the reload lands while the run waits on a child process.
    const token = String(Date.now() % 100000);
    writeFileSync(path.join(ws.folder, 'hang.js'), HANGING_TESTS);
    const settings = path.join(ws.folder, '.vscode', 'settings.json');
    const saved = readFileSync(settings, 'utf8');
    writeFileSync(
      settings,
      JSON.stringify({ ...(JSON.parse(saved) as object), 'ticketRunner.testCommand': `node hang.js ${token}` }, null, 2),
    );
    try {
      const before = runEvents(ws.folder).length;
      await page.waitForTimeout(1_000); // The editor reads the changed settings file.
      await runFromPalette(page, 'Ticket Runner: Run Ticket');
      await pickItem(page, 'BLOG-5');
      await rollBackLeftovers(before); // What the Accept tests' runs left.
      const run = await until(page, 'a new run', () => runEvents(ws.folder)[before], 60_000);
      await until(
        page,
        'the hanging tests to start', // The tests run in a copy of the workspace, so what they write is not in it: their processes say they started.
        () => (pidsWith(`hang.js ${token}`).length > 0 && pidsWith(`299.${token}`).length > 0 ? true : undefined),
        120_000,
      );
      const pids = [...pidsWith(`hang.js ${token}`), ...pidsWith(`299.${token}`)];
      const t = Date.now();
      await runFromPalette(page, 'Developer: Reload Window');
      const types = await until(
        page,
        'run.finished in the log',
        () => {
          const r = runEvents(ws.folder).find((x) => x.runId === run.runId);
          return r?.types.at(-1) === 'run.finished' ? r.types : undefined;
        },
        15_000,
      );
      console.log(`      the reload's deactivate recorded the cancel ${Date.now() - t} ms after the reload command`);
      const last = readFileSync(path.join(ws.folder, '.ticket-runner', 'runs', run.runId, 'events.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .pop()!;
      assert.match(last, /"type":"run\.finished".*"outcome":"cancelled".*"reason":\{"kind":"cancelled"\}/, types.join(', '));
      await until(page, 'the test processes to be gone', () => (pids.some(alive) ? undefined : true), 5_000);
      // The lock goes in the run's last step, after its log's last line: a moment later, within deactivate's time.
      await until(
        page,
        'the workspace lock to be released',
        () => (existsSync(path.join(ws.folder, '.ticket-runner', 'lock')) ? undefined : true),
        5_000,
      );
      await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
    } finally {
      writeFileSync(settings, saved);
    }
  });
});
