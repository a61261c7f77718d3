import assert from 'node:assert/strict';
import { appendFileSync } from 'node:fs';
import * as path from 'node:path';
import { leftoverRuns, planRollback, rollbackRun, type PipelineDeps } from '../../../src/core';
import { reduceRun } from '../../../src/core/run/reducer';
import { runName } from '../../../src/core/run/views/runName';
import { systemClock } from '../../../src/node/store/systemClock';
import { FileRunStore, sha256 } from '../../../src/node/store/fileRunStore';
import { FsWorkspace } from '../../../src/node/workspace/fsWorkspace';
import { leftoverQuestion, rollbackQuestion, RUN_ANYWAY } from '../../../src/vscode/rollbackQuestion';
import { runTicket } from '../../support/scenario';
import { copyFixture } from '../../support/tempWorkspace';

describe('"Roll Back Run" asks with the list of files', function () {
  this.timeout(60_000);
  let ws: ReturnType<typeof copyFixture>;
  before(() => {
    ws = copyFixture();
  });
  after(() => ws.dispose());

  it('lists every file it restores or deletes, and asks to overwrite the ones changed since the run', async () => {
    const run = await runTicket(ws.root, 'BLOG-3');
    const io = { store: new FileRunStore(ws.root), workspace: new FsWorkspace(ws.root), hash: sha256 };
    const name = runName(run.state, new Date());
    const clean = rollbackQuestion(await planRollback(io, run.runId), name);
    assert.equal(clean.action, 'Roll Back');
    assert.match(clean.message, /^Roll back BLOG-3's run from \d\d:\d\d\? 2 file\(s\) go back/);
    assert.equal(clean.detail, 'restore src/format/postSummary.ts\ndelete test/ticket/BLOG-3.test.ts');

    appendFileSync(path.join(ws.root, 'src', 'format', 'postSummary.ts'), '\n// mine\n');
    const asked = rollbackQuestion(await planRollback(io, run.runId), name);
    assert.equal(asked.action, 'Overwrite My Changes');
    assert.match(
      asked.message,
      /1 file\(s\) changed since the run last wrote them, and rolling back overwrites those changes: src\/format\/postSummary\.ts\.$/,
    );
    assert.equal(
      asked.detail,
      'restore src/format/postSummary.ts (changed since the run: your changes would be lost)\ndelete test/ticket/BLOG-3.test.ts',
    );
  });

  it('before a new run: names the earlier runs that did not pass and whose files still hold what they wrote', async () => {
    const io = { store: new FileRunStore(ws.root), workspace: new FsWorkspace(ws.root), hash: sha256 };
    const states = async () => Promise.all((await io.store.listRuns()).map(async (id) => reduceRun(id, (await io.store.load(id)).events)));
    const passed = await runTicket(ws.root, 'BLOG-1');
    assert.equal(passed.state.status, 'passed');
    const left = await leftoverRuns(io, await states());
    assert.equal(left.length, 1, 'the passed run is not named; the one waiting for its correction is');
    assert.equal(left[0]!.ticketId, 'BLOG-3');
    assert.deepEqual(
      left[0]!.files,
      ['test/ticket/BLOG-3.test.ts'],
      'a file changed since the run (the first test appended to it) belongs to the user now: not listed',
    );
    const q = leftoverQuestion(left);
    assert.equal(
      q.message,
      "BLOG-3's change is still in the workspace (its run: waiting for your decision), and this run would build on it.",
    );
    assert.equal(q.detail, "BLOG-3's run (waiting for your decision):\n  test/ticket/BLOG-3.test.ts");
    assert.deepEqual(q.actions, ['Roll Back BLOG-3 and Run', RUN_ANYWAY]);
    assert.deepEqual(
      (await leftoverRuns(io, await states(), { passed: true })).map((l) => l.ticketId),
      ['BLOG-1', 'BLOG-3'],
      'with recorded answers, the passed run is named too, newest first',
    );
    assert.deepEqual(
      (await leftoverRuns(io, await states(), { overwritten: true })).map((l) => [l.ticketId, [...l.files].sort()]),
      [['BLOG-3', ['src/format/postSummary.ts', 'test/ticket/BLOG-3.test.ts']]],
      "for the recorded sample, a file changed since the run is listed too: its rollback is tried, and refused if the change is the user's",
    );
    await rollbackRun({ ...io, store: io.store, clock: systemClock } as unknown as PipelineDeps, left[0]!.runId, { force: true });
    assert.deepEqual(await leftoverRuns(io, await states()), [], 'a rolled-back run is not named again');
  });
});
