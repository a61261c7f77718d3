import assert from 'node:assert/strict';
import { appendFileSync } from 'node:fs';
import * as path from 'node:path';
import { planRollback } from '../../../src/core';
import { FileRunStore, sha256 } from '../../../src/node/store/fileRunStore';
import { FsWorkspace } from '../../../src/node/workspace/fsWorkspace';
import { rollbackQuestion } from '../../../src/vscode/rollbackQuestion';
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
    const clean = rollbackQuestion(await planRollback(io, run.runId));
    assert.equal(clean.action, 'Roll Back');
    assert.equal(clean.detail, 'restore src/format/postSummary.ts\ndelete test/ticket/BLOG-3.test.ts');

    appendFileSync(path.join(ws.root, 'src', 'format', 'postSummary.ts'), '\n// mine\n');
    const asked = rollbackQuestion(await planRollback(io, run.runId));
    assert.equal(asked.action, 'Overwrite My Changes');
    assert.match(asked.message, /1 file\(s\) changed since the run last wrote them, and rolling back overwrites those changes: src\/format\/postSummary\.ts\.$/);
    assert.equal(asked.detail, 'restore src/format/postSummary.ts (changed since the run: your changes would be lost)\ndelete test/ticket/BLOG-3.test.ts');
  });
});
