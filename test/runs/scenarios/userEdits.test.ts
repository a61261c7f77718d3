import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { PipelineDeps } from '../../../src/core/stages/common/context';
import { formatRunReport } from '../../../src/core/run/views/report';
import { freshCopyEachTest, logEvents, runTicket } from '../../support/scenario';

/**
 * A whole run on a copy of blog-api, with the real tools and the scripted model: the user saves
 * the file in scope while the Coder is asked (between the run's read of it and the Coder's
 * write). The run never writes over that save: it merges when the two changes are on lines
 * apart, and otherwise keeps the user's file and stops, with the three versions in its report.
 */

const POSTS = 'src/handlers/posts.ts';

/** The user's save of `POSTS`, on disk, when the Coder is first asked. */
const userSavesDuringCoder = (root: string, edit: (text: string) => string) => (deps: PipelineDeps) => {
  const model = deps.model;
  let saved = false;
  deps.model = {
    info: model.info,
    complete: async (request, signal) => {
      if (request.role === 'coder' && !saved) {
        saved = true;
        const file = path.join(root, POSTS);
        writeFileSync(file, edit(readFileSync(file, 'utf8')));
      }
      return model.complete(request, signal);
    },
  };
};

describe("a whole run never writes over the user's save of a file in scope", function () {
  this.timeout(240_000);
  const ws = freshCopyEachTest();

  it('BLOG-9: a save on the lines the Coder changes is kept as saved, and the run stops with the three versions', async () => {
    const original = ws.read(POSTS);
    const mine = (t: string) =>
      t.replace(
        'const post = Number.isInteger(id) ? getPost(id) : undefined;',
        'const post = Number.isInteger(id) ? getPost(id) : undefined; // mine',
      );
    const r = await runTicket(ws.root, 'BLOG-9', { patch: userSavesDuringCoder(ws.root, mine) });
    assert.equal(ws.read(POSTS), mine(original), "the user's save is on disk as it was made");
    assert.equal(r.state.status, 'failed');
    assert.deepEqual(r.state.finished?.reason, { kind: 'userEdited', files: [POSTS] });
    const kept = logEvents(ws.root, r.runId).filter((e) => e.type === 'userEdit.kept');
    assert.equal(kept.length, 1);
    const report = formatRunReport(r.state);
    assert.match(
      report,
      /Your edit: you changed src\/handlers\/posts\.ts while the run worked on it, and the Coder's change overlaps yours: it was not written/,
    );
    assert.match(report, /yours:\n.*getPost\(id\) : undefined; \/\/ mine/);
    assert.match(report, /the run's:\n(.*\n)*.*Post id must be a positive integer/);
  });

  it("BLOG-9: a save on other lines is merged with the Coder's change, the run passes, and its report says so", async () => {
    const mine = (t: string) =>
      t.replace(
        "import { parsePaginationParams } from '../utils/pagination';",
        "import { parsePaginationParams } from '../utils/pagination';\n// mine: the list handler stays as it is",
      );
    const r = await runTicket(ws.root, 'BLOG-9', { patch: userSavesDuringCoder(ws.root, mine) });
    assert.equal(r.state.status, 'passed', JSON.stringify(r.state.finished));
    const now = ws.read(POSTS);
    assert.match(now, /\/\/ mine: the list handler stays as it is/, "the user's line is there");
    assert.match(now, /Post id must be a positive integer/, "and so is the Coder's change");
    assert.equal(logEvents(ws.root, r.runId).filter((e) => e.type === 'userEdit.merged').length, 1);
    assert.match(
      formatRunReport(r.state),
      /Your edit: you changed src\/handlers\/posts\.ts while the run worked on it: the Coder's change was merged with yours/,
    );
  });
});
