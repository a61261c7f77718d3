import assert from 'node:assert/strict';
import { appendFileSync, existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import { runDistCli } from '../../support/cliProcess';
import { copyFixture } from '../../support/tempWorkspace';
import { git } from '../../support/gitFixture';

describe('git hygiene (dist/cli.js)', function () {
  this.timeout(120_000);
  let ws: ReturnType<typeof copyFixture>;
  beforeEach(() => {
    ws = copyFixture();
  });
  afterEach(() => ws.dispose());

  it('warns about uncommitted changes in scope, records them in the log, and goes on; its first run writes .ticket-runner/.gitignore with *, so git sees none of its files', () => {
    git(ws.root, 'init', '-q');
    git(ws.root, 'add', '-A');
    git(ws.root, 'commit', '-qm', 'fixture');
    appendFileSync(path.join(ws.root, 'src', 'format', 'postSummary.ts'), '\n// work in progress\n');
    appendFileSync(path.join(ws.root, 'README.md'), '\nnot in scope\n');
    const r = runDistCli(['run', '.tickets/BLOG-3.ticket.json', '--model', 'scripted', '--workspace', ws.root, '--json']);
    assert.equal(r.code, 2, r.stderr);
    assert.match(
      r.stderr,
      /^ {2}warning: uncommitted changes in scope: src\/format\/postSummary\.ts \(the run goes on; rollback puts them back as they are now\)$/m,
    );
    const { state } = JSON.parse(r.stdout) as { state: { uncommitted: string[]; attempts: unknown[] } };
    assert.deepEqual(state.uncommitted, ['src/format/postSummary.ts']);
    assert.ok(state.attempts.length > 0, 'the run went on');
    assert.equal(readFileSync(path.join(ws.root, '.ticket-runner', '.gitignore'), 'utf8'), '*\n');
    const status = git(ws.root, 'status', '--porcelain', '--untracked-files=all');
    assert.match(status, /README\.md/, "git sees the user's changes");
    assert.doesNotMatch(status, /\.ticket-runner/);
  });

  it('says once, before any attempt, that dependencies are not installed', () => {
    rmSync(path.join(ws.root, 'node_modules'));
    const r = runDistCli(['run', '.tickets/BLOG-1.ticket.json', '--model', 'scripted', '--workspace', ws.root]);
    assert.equal(r.code, 3);
    assert.equal(r.stderr.trimEnd().split('\n').length, 1, r.stderr);
    assert.match(
      r.stderr.trimEnd(),
      /^ticket-runner: dependencies are not installed: run npm install in .*blog-api \(the project declares 3 and there is no node_modules\)$/,
    );
    const runs = path.join(ws.root, '.ticket-runner', 'runs');
    assert.ok(!existsSync(runs) || readdirSync(runs).length === 0, 'no run, no attempt');
  });
});
