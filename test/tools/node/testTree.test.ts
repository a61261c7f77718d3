import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  appendFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import * as path from 'node:path';
import { TestTree } from '../../../src/node/testRunners/testTree';
import { TreeCommands, TreeTestRunner } from '../../../src/node/testRunners/treeTestRunner';
import type { TestRunResult } from '../../../src/core/schema/checks';
import type { TestRunRequest, TestRunnerPort } from '../../../src/core/ports/checks';
import { copyFixture, REPO_ROOT } from '../../support/tempWorkspace';

/**
 * The copy of the workspace the test commands run in. Each test plays a command as a real
 * child process in the copy, writing what a test would (a file of the tree, a cache in
 * node_modules, a planted package, a replaced link) while the "user" saves in the workspace,
 * and checks what the next command and the workspace see.
 */

const request: TestRunRequest = { framework: 'node:test', files: ['test/posts.test.ts'], timeoutMs: 60_000 };
const never = new AbortController().signal;

/** A runner whose every run is a script run in the copy, with what the test gives it to do meanwhile. */
function scriptRunner(tree: TestTree, script: () => string, meanwhile: () => void = () => undefined): TestRunnerPort {
  return {
    run: () => {
      execFileSync(process.execPath, ['-e', script()], { cwd: tree.dir });
      meanwhile();
      const r: TestRunResult = {
        status: 'passed',
        framework: 'node:test',
        command: ['node', path.join(tree.dir, 'x.js')],
        passed: 1,
        failed: 0,
        skipped: 0,
        durationMs: 1,
        cases: [],
        output: `at ${path.join(tree.dir, 'src/a.ts')}:1:1`,
      };
      return Promise.resolve(r);
    },
  };
}

describe("the test commands' copy of the workspace", function () {
  this.timeout(60_000);
  let ws: ReturnType<typeof copyFixture>;
  let tree: TestTree;
  beforeEach(() => {
    ws = copyFixture();
    tree = new TestTree(ws.root);
  });
  afterEach(async () => {
    await tree.dispose();
    ws.dispose();
  });
  const inWs = (rel: string) => path.join(ws.root, rel);
  const inCopy = (rel: string) => path.join(tree.dir, rel);

  it("a command writes the copy, never the workspace; the next sync undoes it and brings the workspace's own changes", async () => {
    await tree.sync();
    assert.equal(readFileSync(inCopy('src/handlers/posts.ts'), 'utf8'), readFileSync(inWs('src/handlers/posts.ts'), 'utf8'));
    execFileSync(
      process.execPath,
      ['-e', "require('fs').writeFileSync('src/handlers/posts.ts', 'hostile'); require('fs').writeFileSync('planted.ts', '1')"],
      { cwd: tree.dir },
    );
    const before = readFileSync(inWs('src/handlers/posts.ts'), 'utf8');
    appendFileSync(inWs('README.md'), 'saved by the user\n');
    const stamps = await tree.sync();
    assert.equal(readFileSync(inWs('src/handlers/posts.ts'), 'utf8'), before);
    assert.equal(readFileSync(inCopy('src/handlers/posts.ts'), 'utf8'), before, "the command's write was not undone in the copy");
    assert.equal(existsSync(inCopy('planted.ts')), false);
    assert.match(readFileSync(inCopy('README.md'), 'utf8'), /saved by the user/);
    assert.deepEqual(await tree.changedSince(stamps), []);
  });

  it('its node_modules is its own folder of links: a cache written there, a planted package and a replaced link are gone at the next sync', async () => {
    await tree.sync();
    const nm = inCopy('node_modules');
    assert.ok(lstatSync(nm).isDirectory() && !lstatSync(nm).isSymbolicLink());
    assert.equal(readlinkSync(path.join(nm, 'tsx')), path.join(ws.root, 'node_modules', 'tsx'));
    mkdirSync(path.join(nm, '.vite-temp'));
    writeFileSync(path.join(nm, '.vite-temp', 'config.mjs'), 'export default {}');
    mkdirSync(path.join(nm, 'planted'));
    rmSync(path.join(nm, 'tsx'));
    mkdirSync(path.join(nm, 'tsx'));
    writeFileSync(path.join(nm, 'tsx', 'package.json'), '{"name":"tsx","main":"fake.js"}');
    await tree.sync();
    assert.equal(existsSync(path.join(nm, '.vite-temp')), false);
    assert.equal(existsSync(path.join(nm, 'planted')), false);
    assert.equal(readlinkSync(path.join(nm, 'tsx')), path.join(ws.root, 'node_modules', 'tsx'));
    assert.deepEqual(
      readdirSync(nm).sort(),
      readdirSync(inWs('node_modules'))
        .filter((n) => !['.vite', '.vite-temp', '.cache'].includes(n))
        .sort(),
    );
  });

  it("what changed in the workspace while a command ran is named; with the sandbox on it is the user's, kept as it is", async () => {
    const commands = new TreeCommands({ tree, sandboxed: true });
    const runner = new TreeTestRunner(
      scriptRunner(
        tree,
        () => "require('fs').writeFileSync('src/handlers/posts.ts', 'written by the test')",
        () => appendFileSync(inWs('README.md'), 'saved\n'),
      ),
      commands,
    );
    const before = readFileSync(inWs('src/handlers/posts.ts'), 'utf8');
    const r = await runner.run(request, never);
    assert.equal(r.status, 'passed');
    assert.deepEqual(r.workspaceEdits, [{ path: 'README.md', change: 'modified', by: 'user' }]);
    assert.match(r.output, /saved in the workspace while the tests ran, and kept as it is: modified README\.md/);
    assert.match(readFileSync(inWs('README.md'), 'utf8'), /saved\n$/);
    assert.equal(readFileSync(inWs('src/handlers/posts.ts'), 'utf8'), before);
    assert.deepEqual(runner.unattributedWrites(), []);
    // The copy's paths are the workspace's in what the command printed.
    assert.equal(r.output.split('\n')[0], `at ${path.join(ws.root, 'src/a.ts')}:1:1`);
    assert.deepEqual(r.command, ['node', path.join(ws.root, 'x.js')]);
  });

  it("without the sandbox: a change the editor saved is the user's; any other voids the result, is kept as found with a copy under the run store, and is named for the run's stop", async () => {
    const saved = new Set<string>();
    const userSaves = { saved: (rel: string, digest: string) => saved.has(`${rel}:${digest}`) };
    mkdirSync(inWs('.git/hooks'), { recursive: true });
    const commands = new TreeCommands({ tree, sandboxed: false, userSaves });
    const sha = (text: string) => createHash('sha256').update(text).digest('hex');
    const runner = new TreeTestRunner(
      scriptRunner(
        tree,
        () => 'void 0',
        () => {
          writeFileSync(inWs('NOTES.md'), 'by the editor\n');
          saved.add(`NOTES.md:${sha('by the editor\n')}`);
          appendFileSync(inWs('src/utils/pagination.ts'), '// who?\n');
          writeFileSync(inWs('.git/hooks/pre-commit'), 'echo planted');
        },
      ),
      commands,
    );
    const r = await runner.run(request, never);
    assert.equal(r.status, 'error');
    const edits = new Map((r.workspaceEdits ?? []).map((e) => [e.path, e]));
    assert.equal(edits.get('NOTES.md')?.by, 'user');
    for (const [rel, found] of [
      ['src/utils/pagination.ts', readFileSync(inWs('src/utils/pagination.ts'), 'utf8')],
      ['.git/hooks/pre-commit', 'echo planted'],
    ] as const) {
      const e = edits.get(rel);
      assert.equal(e?.by, 'unknown', rel);
      assert.equal(readFileSync(path.join(ws.root, e.keptCopy!), 'utf8'), found, rel);
    }
    assert.match(readFileSync(inWs('src/utils/pagination.ts'), 'utf8'), /\/\/ who\?\n$/, 'the change was put back');
    assert.deepEqual(runner.unattributedWrites(), ['.git/hooks/pre-commit', 'src/utils/pagination.ts']);
    assert.match(r.output, /nothing tells whether the tests or you wrote it: kept as it is unless said, and this result does not count/);
    // The hook, which git would run outside any sandbox, is not left armed: put back (there was none), the found one kept.
    assert.equal(edits.get('.git/hooks/pre-commit')?.putBack, true);
    assert.equal(existsSync(inWs('.git/hooks/pre-commit')), false);
  });

  it("an npm-workspaces package's own node_modules is linked too, and a workspace link to one of its packages points into the copy", async () => {
    mkdirSync(inWs('packages/app/node_modules'), { recursive: true });
    symlinkSync(path.join(ws.root, 'node_modules', 'tsx'), inWs('packages/app/node_modules/tsx'));
    mkdirSync(inWs('packages/lib'), { recursive: true });
    writeFileSync(inWs('packages/lib/index.js'), 'module.exports = 1');
    const scoped = inWs('packages/app/node_modules/@me');
    mkdirSync(scoped);
    symlinkSync('../../../lib', path.join(scoped, 'lib'));
    await tree.sync();
    assert.equal(readlinkSync(inCopy('packages/app/node_modules/tsx')), path.join(ws.root, 'packages/app/node_modules/tsx'));
    assert.equal(readlinkSync(inCopy('packages/app/node_modules/@me/lib')), inCopy('packages/lib'));
  });

  it('a folder of links left alone is not read again, yet a link replaced in a scope folder, a package installed since and a link pointed elsewhere are each put right at the next sync', async () => {
    // A node_modules of its own, with a scope folder; linked in whole, as blog-api's copy links the repository's.
    const nm = path.join(ws.root, '..', 'installed');
    rmSync(inWs('node_modules'), { recursive: true, force: true });
    mkdirSync(path.join(nm, '@types'), { recursive: true });
    symlinkSync(nm, inWs('node_modules'));
    const shared = (name: string) => path.join(REPO_ROOT, 'node_modules', name);
    symlinkSync(shared('tsx'), path.join(nm, 'tsx'));
    symlinkSync(shared('@types/node'), path.join(nm, '@types', 'node'));
    await tree.sync();
    const copied = inCopy('node_modules');
    const linkOf = (rel: string) => readlinkSync(path.join(copied, rel));
    assert.equal(linkOf('@types/node'), inWs('node_modules/@types/node'));
    // Untouched on both sides: the links stay the very entries they were.
    const inode = lstatSync(path.join(copied, 'tsx')).ino;
    await tree.sync();
    assert.equal(lstatSync(path.join(copied, 'tsx')).ino, inode);
    // A command replaces a link inside the scope folder: only that folder's times move.
    rmSync(path.join(copied, '@types', 'node'));
    mkdirSync(path.join(copied, '@types', 'node'));
    writeFileSync(path.join(copied, '@types', 'node', 'index.d.ts'), 'export {};');
    await tree.sync();
    assert.equal(linkOf('@types/node'), inWs('node_modules/@types/node'));
    // The user installs a package (into the folder the workspace's node_modules links to).
    symlinkSync(shared('zod'), path.join(nm, 'zod'));
    await tree.sync();
    assert.equal(linkOf('zod'), inWs('node_modules/zod'));
    // A command points a link at a package of its own, under the same name.
    rmSync(path.join(copied, 'tsx'));
    symlinkSync(inCopy('src'), path.join(copied, 'tsx'));
    await tree.sync();
    assert.equal(linkOf('tsx'), inWs('node_modules/tsx'));
    assert.deepEqual(readdirSync(copied).sort(), ['@types', 'tsx', 'zod']);
  });

  it("the copy is at the workspace's usual path run after run; a run beside it gets its own, and one whose process is gone gives its up", async () => {
    const usual = tree.dir;
    await tree.sync();
    // A second run at once: a path of its own.
    const beside = new TestTree(ws.root);
    assert.notEqual(beside.dir, usual);
    await beside.dispose();
    await tree.dispose();
    // The next run: the same path, which tsx's kept cache is keyed by.
    tree = new TestTree(ws.root);
    assert.equal(tree.dir, usual);
    await tree.sync();
    // A run whose process died left its copy: the next run takes the path over.
    const base = path.dirname(usual);
    const owner = JSON.parse(readFileSync(path.join(base, '.owner'), 'utf8')) as { pid: number; host: string };
    writeFileSync(path.join(base, '.owner'), JSON.stringify({ ...owner, pid: 2 ** 22 + 1 }));
    const next = new TestTree(ws.root);
    assert.equal(next.dir, usual);
    await next.sync();
    assert.ok(existsSync(path.join(usual, 'src')), 'the path holds the new copy');
    await next.dispose();
    // The dead run's copy went with its folder: nothing else holds the path now.
    assert.equal(existsSync(base), false);
  });
});
