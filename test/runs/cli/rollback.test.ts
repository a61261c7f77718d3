import assert from 'node:assert/strict';
import { appendFileSync, chmodSync, existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { runDistCli } from '../../support/cliProcess';
import { copyFixture, copyWorkspace, treeHash } from '../../support/tempWorkspace';

const modeOf = (file: string) => statSync(file).mode & 0o7777;

describe('rollback that never destroys work (dist/cli.js)', function () {
  this.timeout(180_000);
  // One BLOG-1 run, done once; each test takes a copy of the workspace as the run left it.
  let original: ReturnType<typeof copyFixture>;
  let untouched: string;
  let runId: string;
  before(() => {
    original = copyFixture();
    // A mode the run's write-and-rename would reset, on the file the Coder rewrites.
    chmodSync(path.join(original.root, 'src', 'handlers', 'posts.ts'), 0o755);
    untouched = treeHash(original.root, { modes: true });
    const r = runDistCli(['run', '.tickets/BLOG-1.ticket.json', '--model', 'scripted', '--json', '--workspace', original.root]);
    assert.equal(r.code, 0, r.stderr);
    runId = (JSON.parse(r.stdout) as { runId: string }).runId;
  });
  after(() => original.dispose());
  let ws: ReturnType<typeof copyWorkspace>;
  beforeEach(() => {
    ws = copyWorkspace(original.root);
  });
  afterEach(() => ws.dispose());
  const cli = (...args: string[]) => runDistCli([...args, '--workspace', ws.root]);

  it('puts back the whole tree exactly: contents, modes, created files and folders', () => {
    const before = untouched;
    assert.notEqual(treeHash(ws.root, { modes: true }), before, 'the run changed the tree');
    assert.equal(modeOf(path.join(ws.root, 'src', 'handlers', 'posts.ts')), 0o755, 'the run kept the mode of the file it rewrote');
    assert.ok(existsSync(path.join(ws.root, 'test', 'ticket')), 'the rendered tests created a folder');

    const r = cli('rollback', runId);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /restored src\/handlers\/posts\.ts/);
    assert.match(r.stdout, /deleted test\/ticket\/BLOG-1\.test\.ts/);
    assert.match(r.stdout, /removed folder test\/ticket/);
    assert.equal(treeHash(ws.root, { modes: true }), before);

    const again = cli('rollback', runId);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /0 file\(s\) put back/);
    assert.equal(treeHash(ws.root, { modes: true }), before);
  });

  it('refuses, naming each file the user changed since the run (a deleted file the run created is no conflict), and changes nothing; --force proceeds', () => {
    const before = untouched;
    const posts = path.join(ws.root, 'src', 'handlers', 'posts.ts');
    appendFileSync(posts, '\n// my edit after the run\n');
    rmSync(path.join(ws.root, 'test', 'ticket', 'BLOG-1.test.ts'));
    const edited = treeHash(ws.root, { modes: true });
    const log = readFileSync(path.join(ws.root, '.ticket-runner', 'runs', runId, 'events.jsonl'), 'utf8');

    const refused = cli('rollback', runId);
    assert.equal(refused.code, 3);
    assert.equal(
      refused.stderr.trimEnd(),
      `ticket-runner: rollback of ${runId} refused: 1 file(s) changed since the run last wrote them: src/handlers/posts.ts. Nothing was changed. Save those edits elsewhere, or pass --force to overwrite them.`,
    );
    assert.equal(treeHash(ws.root, { modes: true }), edited, 'nothing changed');
    assert.equal(readFileSync(path.join(ws.root, '.ticket-runner', 'runs', runId, 'events.jsonl'), 'utf8'), log, 'nothing logged');

    const forced = cli('rollback', runId, '--force');
    assert.equal(forced.code, 0, forced.stderr);
    assert.match(forced.stdout, /overwritten \(--force\): src\/handlers\/posts\.ts/);
    assert.equal(treeHash(ws.root, { modes: true }), before);
  });
});
