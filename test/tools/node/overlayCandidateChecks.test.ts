import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import * as path from 'node:path';
import { OverlayCandidateChecks } from '../../../src/node/candidates/overlayCandidateChecks';
import { snapshot } from '../../../src/node/workspace/scratchTree';
import { SKIPPED } from '../../../src/node/workspace/treeSkips';
import { copyFixture } from '../../support/tempWorkspace';
import type { TestRunnerPort } from '../../../src/core/ports/checks';

/**
 * Rung 4's scratch copy, kept across a run's run_tests calls. The candidate's code runs in the
 * copy with write access to all of it, so each test plays a candidate's run as a real child
 * process that writes what a hostile one would (an extra file, a rewritten test with its
 * size and times put back, a folder swapped for a link to the real workspace, a nested
 * node_modules, its own node_modules link) and checks that the next call and the real
 * workspace see none of it.
 */

const POSTS = 'src/handlers/posts.ts';
const TEST = 'test/posts.test.ts';
const never = new AbortController().signal;

/** The port with no checks worth the name: the subject here is the tree the checks would run in. */
const noChecks = { tests: { run: () => Promise.reject(new Error('not run here')) } as unknown as TestRunnerPort };

/** Runs a script in the copy as a child process, the way a candidate's tests would run. */
const runIn = (dir: string, script: string) => execFileSync(process.execPath, ['-e', script], { cwd: dir });

/** Every file's content under a root (what SKIPPED names left out), for comparing two trees. */
async function contents(root: string, keep = new Set<string>()): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const [rel, stamp] of await snapshot(root, { skip: SKIPPED, keep })) {
    const abs = path.join(root, rel);
    out.set(rel, stamp === 'dir' ? 'dir' : lstatSync(abs).isSymbolicLink() ? `-> ${readlinkSync(abs)}` : readFileSync(abs, 'utf8'));
  }
  return out;
}

describe('rung 4: the kept scratch copy', function () {
  this.timeout(60_000);
  let ws: ReturnType<typeof copyFixture>;
  let port: OverlayCandidateChecks;
  beforeEach(() => {
    ws = copyFixture();
    port = new OverlayCandidateChecks({ root: ws.root, makeChecks: () => noChecks });
  });
  afterEach(async () => {
    await port.dispose();
    ws.dispose();
  });

  it("keeps one copy across calls, and a hostile candidate's leftovers reach neither the next call nor the workspace", async () => {
    const before = await contents(ws.root);
    const testBefore = readFileSync(path.join(ws.root, TEST), 'utf8');

    const first = await port.open([{ path: POSTS, content: 'export const first = 1;\n' }], never);
    assert.notEqual(first.root, ws.root);
    assert.equal(readFileSync(path.join(first.root, POSTS), 'utf8'), 'export const first = 1;\n');
    const realTest = path.join(ws.root, TEST);
    // The attack, from a child process in the copy: everything it can write there.
    runIn(
      first.root,
      `const fs = require('node:fs');
       fs.writeFileSync('src/planted.ts', 'export const planted = true;');
       const t = 'test/posts.test.ts';
       const st = fs.statSync(t);
       const text = fs.readFileSync(t, 'utf8');
       // Same size, same times: only the change time can tell.
       fs.writeFileSync(t, text.replace('assert', 'ASSERT'));
       fs.utimesSync(t, st.atime, st.mtime);
       fs.rmSync('src/store', { recursive: true });
       fs.symlinkSync(${JSON.stringify(path.join(ws.root, 'src/utils'))}, 'src/store');
       fs.mkdirSync('src/node_modules/assert', { recursive: true });
       fs.writeFileSync('src/node_modules/assert/index.js', 'module.exports = () => {};');
       fs.rmSync('node_modules');
       fs.mkdirSync('node_modules');
       fs.rmSync('package.json');`,
    );
    assert.equal(statSync(path.join(first.root, TEST)).size, Buffer.byteLength(testBefore), 'the rewrite kept the size');
    await first.dispose();

    // The real workspace was never written.
    assert.deepEqual(await contents(ws.root), before);
    assert.equal(readFileSync(realTest, 'utf8'), testBefore);

    // Between calls the run writes the workspace: the next call sees that, and nothing of the last call.
    writeFileSync(path.join(ws.root, 'src/format/extra.ts'), 'export const written = "by the run";\n');
    const second = await port.open([{ path: 'src/store/postStore.ts', content: 'export const second = 2;\n' }], never);
    assert.equal(second.root, first.root, 'the same copy, kept');
    const expected = await contents(ws.root);
    expected.set('src/store/postStore.ts', 'export const second = 2;\n');
    assert.deepEqual(await contents(second.root, new Set(['node_modules'])), expected);
    assert.ok(
      !existsSync(path.join(second.root, 'src/node_modules')),
      'the nested node_modules is gone (SKIPPED hides it from the comparison)',
    );
    assert.equal(
      readlinkSync(path.join(second.root, 'node_modules')),
      path.join(ws.root, 'node_modules'),
      'the dependency link is the real one again',
    );
    assert.ok(lstatSync(path.join(second.root, 'src/store')).isDirectory(), 'the folder swapped for a link is a folder again');
    // The candidate's file is written into the copy, not through a link into the workspace.
    assert.notEqual(readFileSync(path.join(ws.root, 'src/store/postStore.ts'), 'utf8'), 'export const second = 2;\n');
    await second.dispose();

    // After the last call the copy holds the workspace again, the candidate's file included.
    const third = await port.open([{ path: POSTS, content: 'export const third = 3;\n' }], never);
    assert.equal(
      readFileSync(path.join(third.root, 'src/store/postStore.ts'), 'utf8'),
      readFileSync(path.join(ws.root, 'src/store/postStore.ts'), 'utf8'),
    );
    await third.dispose();
    assert.deepEqual(
      await contents(ws.root),
      expected.set('src/store/postStore.ts', readFileSync(path.join(ws.root, 'src/store/postStore.ts'), 'utf8')),
    );

    const kept = third.root;
    await port.dispose();
    assert.ok(!existsSync(path.dirname(kept)), 'disposing the port removes the copy');
  });

  it('sees a workspace file the run deleted, and a file whose only change is its content at the same size and times', async () => {
    const first = await port.open([{ path: POSTS, content: 'export {};\n' }], never);
    await first.dispose();
    const pagination = path.join(ws.root, 'src/utils/pagination.ts');
    const st = statSync(pagination);
    const text = readFileSync(pagination, 'utf8');
    writeFileSync(pagination, text.replace('MAX_PER_PAGE = 100', 'MAX_PER_PAGE = 999'));
    utimesSync(pagination, st.atime, st.mtime);
    rmSync(path.join(ws.root, 'src/format/postSummary.ts'));
    mkdirSync(path.join(ws.root, 'src/new'));
    symlinkSync('../utils/pagination.ts', path.join(ws.root, 'src/new/link.ts'));

    const second = await port.open([{ path: POSTS, content: 'export {};\n' }], never);
    assert.match(readFileSync(path.join(second.root, 'src/utils/pagination.ts'), 'utf8'), /MAX_PER_PAGE = 999/);
    assert.ok(!existsSync(path.join(second.root, 'src/format/postSummary.ts')));
    assert.equal(
      readlinkSync(path.join(second.root, 'src/new/link.ts')),
      '../utils/pagination.ts',
      'a relative link stays relative: it points inside the copy',
    );
    await second.dispose();
  });

  it('tells a file rewritten at the same size with its times set back exactly from the one it was', async () => {
    const file = path.join(ws.root, 'src/utils/pagination.ts');
    // Whole seconds, so the times can be put back to the nanosecond: only the change time still moves.
    utimesSync(file, 1_700_000_000, 1_700_000_000);
    const stamp = async () => (await snapshot(ws.root, { skip: SKIPPED })).get('src/utils/pagination.ts');
    const before = await stamp();
    const text = readFileSync(file, 'utf8');
    await new Promise((r) => setTimeout(r, 20));
    writeFileSync(file, text.replace('MAX_PER_PAGE = 100', 'MAX_PER_PAGE = 999'));
    utimesSync(file, 1_700_000_000, 1_700_000_000);
    assert.equal(statSync(file).mtimeMs, 1_700_000_000_000);
    assert.notEqual(await stamp(), before);
  });

  it('gives a call that overlaps one in flight a copy of its own, and copies afresh on every call with reuse off', async () => {
    const a = await port.open([{ path: POSTS, content: 'export const a = 1;\n' }], never);
    const b = await port.open([{ path: POSTS, content: 'export const b = 1;\n' }], never);
    assert.notEqual(a.root, b.root);
    assert.equal(readFileSync(path.join(a.root, POSTS), 'utf8'), 'export const a = 1;\n');
    await b.dispose();
    assert.ok(!existsSync(b.root), 'the one-off copy is removed');
    await a.dispose();

    const fresh = new OverlayCandidateChecks({ root: ws.root, makeChecks: () => noChecks, reuse: false });
    const one = await fresh.open([{ path: POSTS, content: 'x' }], never);
    await one.dispose();
    const two = await fresh.open([{ path: POSTS, content: 'y' }], never);
    assert.notEqual(two.root, one.root);
    assert.ok(!existsSync(one.root));
    await two.dispose();
  });
});
