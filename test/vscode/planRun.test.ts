import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import { docScreenshot } from '../support/docScreenshot';
import { inEachTheme, openWindow, pickItem, runFromPalette, runWebview, tempWorkspace } from './workbench';

/** Each run of the workspace: its run.started and its last run.finished, as its log wrote them. */
function runEnds(folder: string): { started: Record<string, unknown>; finished?: Record<string, unknown> }[] {
  const dir = path.join(folder, '.ticket-runner', 'runs');
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((id) => {
    const file = path.join(dir, id, 'events.jsonl');
    const events = existsSync(file)
      ? readFileSync(file, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as Record<string, unknown>)
      : [];
    const started = events.find((e) => e.type === 'run.started');
    // The last end: a run that waited for a correction ends again once it is accepted.
    return started ? [{ started, finished: [...events].reverse().find((e) => e.type === 'run.finished') }] : [];
  });
}

const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();

/**
 * Run Plan in a real VS Code, on a copy of the sample in git: the plan of three tickets (TAGS-2
 * after TAGS-1, TAGS-3 on its own) runs to the end with the recorded sample, each ticket in the
 * runs view and none of them opening a run view over the user's editor; each passed ticket is a
 * commit on the plan's branch, and the plans view shows the plan passed.
 */
describe('Run Plan, in code-server', function () {
  this.timeout(600_000);
  let page: Page;
  let close: (() => Promise<void>) | undefined;
  // No key and no chat model: the recorded sample is the way Run Plan is offered, and chosen.
  // The headless language service judges the types: TAGS-1 creates src/utils/tagName.ts, and the
  // editor's TypeScript server, asked at once, still reports its importer's import of it as TS2307.
  const ws = tempWorkspace({ 'ticketRunner.model': 'anthropic', 'ticketRunner.diagnostics': 'headless' });
  const plansPane = () => page.locator('.part.sidebar .pane', { has: page.locator('.pane-header h3.title', { hasText: /^Plans$/ }) });
  const rows = () => plansPane().locator('.monaco-list-row');

  before(async () => {
    // A plan that pauses: BLOG-4's recorded run ends waiting for a correction, and BLOG-1 waits for it.
    writeFileSync(
      path.join(ws.folder, '.tickets', 'WAIT.plan.yaml'),
      'id: WAIT\ntitle: A correction to decide first\ntickets:\n  - ticket: BLOG-4\n  - ticket: BLOG-1\n    after: [BLOG-4]\n',
    );
    writeFileSync(path.join(ws.folder, '.gitignore'), 'node_modules\n.ticket-runner\n.vscode\n');
    git(ws.folder, 'init', '-q', '-b', 'main');
    git(ws.folder, 'add', '-A');
    git(ws.folder, '-c', 'user.name=Test', '-c', 'user.email=test@example.com', 'commit', '-q', '-m', 'The sample');
    ({ page, close } = await openWindow(ws, { env: { ANTHROPIC_API_KEY: '' } }));
  });
  after(async () => close?.());

  it('the plans view lists the plan, not run yet, its tickets in the order they run', async () => {
    await runFromPalette(page, 'Ticket Runner: Focus on Plans View');
    await rows().first().waitFor({ timeout: 60_000 });
    const labels = await rows().evaluateAll((els) => els.map((e) => e.getAttribute('aria-label')));
    assert.deepEqual(labels, [
      'plan TAGS, not run yet',
      'TAGS-1, not run yet',
      'TAGS-3, not run yet',
      'TAGS-2, waits for TAGS-1',
      'plan WAIT, not run yet',
      'BLOG-4, not run yet',
      'BLOG-1, waits for BLOG-4',
    ]);
  });

  it('Run Plan runs TAGS-1, TAGS-3, then TAGS-2 to a pass with the recorded sample, refusing Run Ticket and Run Plan meanwhile, commits each on plan/TAGS, and opens no run view', async () => {
    await runFromPalette(page, 'Ticket Runner: Run Plan');
    await pickItem(page, 'TAGS');
    const dialog = page.locator('.monaco-dialog-box');
    await dialog.waitFor({ timeout: 60_000 });
    await dialog.locator('.monaco-button', { hasText: 'Try the Recorded Sample' }).click();
    // While it runs, neither a ticket nor the plan again starts in its workspace: each says why.
    const refused = (what: string) =>
      page.locator('.notification-toast', { hasText: `${what}: the plan TAGS is running in blog-api; wait for it to end` });
    await runFromPalette(page, 'Ticket Runner: Run Ticket');
    await pickItem(page, 'BLOG-1');
    await refused('.tickets/BLOG-1.ticket.json did not start').waitFor({ timeout: 30_000 });
    await runFromPalette(page, 'Ticket Runner: Run Plan');
    await pickItem(page, 'TAGS');
    await refused('The plan .tickets/TAGS.plan.yaml did not start').waitFor({ timeout: 30_000 });
    const notice = page.locator('.notification-toast', { hasText: 'TAGS passed: every ticket passed' });
    const end = Date.now() + 540_000;
    while (!(await notice.isVisible())) {
      const failed = runEnds(ws.folder).find((r) => r.finished && r.finished.outcome !== 'passed');
      if (failed) {
        const log = readFileSync(path.join(ws.folder, '.ticket-runner', 'runs', String(failed.started.runId), 'events.jsonl'), 'utf8');
        throw new Error(
          `${String(failed.started.ticketId)} did not pass:\n${log
            .split('\n')
            .map((l) => l.slice(0, 700))
            .join('\n')}`,
        );
      }
      if (Date.now() > end) throw new Error(`the plan did not end: ${JSON.stringify(runEnds(ws.folder).map((r) => r.finished?.outcome))}`);
      await page.waitForTimeout(1_000);
    }
    const runs = runEnds(ws.folder).sort((a, b) => String(a.started.ts).localeCompare(String(b.started.ts)));
    assert.deepEqual(
      runs.map((r) => [r.started.ticketId, r.finished?.outcome]),
      [
        ['TAGS-1', 'passed'],
        ['TAGS-3', 'passed'],
        ['TAGS-2', 'passed'],
      ],
    );
    const links = runs.map((r) => r.started.plan as { id: string; file: string; round: string });
    assert.ok(
      links.every((l) => l.id === 'TAGS' && l.file === '.tickets/TAGS.plan.yaml' && l.round === links[0]!.round),
      'one round of the plan',
    );
    assert.ok(
      runs.every((r) => (r.started.model as { scripted?: boolean }).scripted === true),
      'the recorded answers ran them',
    );
    assert.equal(git(ws.folder, 'rev-parse', '--abbrev-ref', 'HEAD'), 'plan/TAGS');
    assert.deepEqual(git(ws.folder, 'log', '--format=%s', 'main..plan/TAGS').split('\n'), [
      'TAGS-2: ' + titleOf(ws.folder, 'TAGS-2'),
      'TAGS-3: ' + titleOf(ws.folder, 'TAGS-3'),
      'TAGS-1: ' + titleOf(ws.folder, 'TAGS-1'),
    ]);
    assert.equal(await page.locator('.tab', { hasText: /^Run: |TAGS-\d/ }).count(), 0, 'no run view opened over the editor');
  });

  it('a plan whose ticket waits for a correction pauses; its notice opens that run, where the correction is decided', async () => {
    await runFromPalette(page, 'Ticket Runner: Run Plan');
    await pickItem(page, 'WAIT');
    const notice = page.locator('.notification-toast', {
      hasText: 'WAIT is paused: 0 of 2 tickets passed; BLOG-4 waits for your decision',
    });
    await notice.waitFor({ timeout: 300_000 });
    await notice.locator('.monaco-button', { hasText: "Open BLOG-4's Run" }).click();
    await runWebview(page).locator('#accept').waitFor({ timeout: 60_000 });
    const blog1 = await rows().evaluateAll((els) =>
      els.map((e) => e.getAttribute('aria-label') ?? '').filter((l) => l.startsWith('BLOG-1, ')),
    );
    assert.deepEqual(blog1, ['BLOG-1, paused: BLOG-4 did not pass']);
  });

  it('the plans view shows the plan passed, each ticket passed with its time and cost, TAGS-2 after TAGS-1; pictured in both themes', async () => {
    await rows().first().and(page.locator('[aria-label="plan TAGS, passed"]')).waitFor({ timeout: 30_000 });
    const labels = await rows().evaluateAll((els) => els.map((e) => e.getAttribute('aria-label') ?? ''));
    assert.equal(labels[0], 'plan TAGS, passed');
    assert.equal(labels[4], 'plan WAIT, paused: 0 of 2 passed');
    assert.deepEqual(
      labels.slice(1, 4).map((l) => l.split(',')[0]),
      ['TAGS-1', 'TAGS-3', 'TAGS-2'],
    );
    assert.match(labels[1]!, /^TAGS-1, passed, [\d.]+ s, \$0\.00$/);
    assert.match(labels[3]!, /^TAGS-2, passed, after TAGS-1, [\d.]+ s, \$0\.00$/);
    // At the sidebar's default width every row reads whole: no description cut short.
    const cut = await rows().evaluateAll((els) =>
      els.flatMap((e) => {
        const box = e.querySelector('.monaco-icon-label-container');
        return box && box.scrollWidth > box.clientWidth + 1 ? [e.getAttribute('aria-label') ?? ''] : [];
      }),
    );
    assert.deepEqual(cut, []);
    await page.mouse.move(700, 450); // No hover on a row.
    await inEachTheme(page, ws.folder, (theme) => docScreenshot(plansPane(), `plan-tree-${theme}`, { bottom: rows().last() }));
  });
});

/** A ticket's title, as its file has it. */
function titleOf(folder: string, id: string): string {
  const text = readFileSync(path.join(folder, '.tickets', `${id}.ticket.yaml`), 'utf8');
  return /^title: (.*)$/m.exec(text)![1]!.replace(/^['"]|['"]$/g, '');
}
