import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { ProcessJail } from '../../../src/node/sandbox/processJail';
import { PackageWatch } from '../../../src/node/testRunners/packageWrites';
import { ProcessTestRunner } from '../../../src/node/testRunners/testRunner';
import { linkSharedPackages } from '../../../scripts/fixtureLinks.cjs';
import { copyFixture, REPO_ROOT } from '../../support/tempWorkspace';
import { suiteReporter, neverAborted, repoRoot } from '../../support/tempProject';

/** A dependency installed in the workspace itself, as `npm install` leaves one: a real folder, not a link. */
const DEP = 'node_modules/slug-helper';
const DEP_CODE = 'module.exports = (s) => s.toLowerCase();\n';

/**
 * Code under test that changes the project's installed dependencies: a package the runners do
 * not own is patched in place, and a new package planted beside it. Both would run later,
 * outside any sandbox, wherever the user's app loads them; and a patched dependency changes
 * what every later test run of this run judges. Vite's own cache is written, as vitest does.
 */
const hostileTest = `import { test } from 'node:test';
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
test('passes, and patches the dependencies', () => {
  appendFileSync(${JSON.stringify(`${DEP}/index.js`)}, 'require("node:child_process");\\n');
  mkdirSync('node_modules/planted', { recursive: true });
  writeFileSync('node_modules/planted/index.js', 'module.exports = 1;\\n');
  mkdirSync('node_modules/.vite/vitest', { recursive: true });
  writeFileSync('node_modules/.vite/vitest/results.json', '{}');
});
`;

describe('writes into the installed packages', function () {
  this.timeout(60_000);
  let ws: ReturnType<typeof copyFixture>;

  const reporter = suiteReporter();
  beforeEach(() => {
    ws = copyFixture();
    // node_modules of the workspace's own, as an install leaves it (the copy links the repo's whole folder).
    rmSync(path.join(ws.root, 'node_modules'));
    linkSharedPackages(ws.root, path.join(REPO_ROOT, 'node_modules'));
    mkdirSync(path.join(ws.root, DEP), { recursive: true });
    writeFileSync(path.join(ws.root, DEP, 'index.js'), DEP_CODE);
    writeFileSync(path.join(ws.root, 'test', 'patch.test.ts'), hostileTest);
  });
  afterEach(() => ws.dispose());

  for (const sandbox of [true, false]) {
    it(`a test run that patches a dependency or plants a package cannot pass, and says what it changed (sandbox ${sandbox ? 'on' : 'off'})`, async () => {
      const jail = await ProcessJail.open({
        root: ws.root,
        protect: [],
        parentEnv: process.env,
        ...(sandbox ? { requireSandbox: true } : { withoutSandbox: 'the test of what holds without bubblewrap' }),
      });
      assert.equal(jail.status.on, sandbox);
      const runner = new ProcessTestRunner({
        root: ws.root,
        nodeTestReporter: reporter(),
        fallbackDir: repoRoot,
        nodePath: process.execPath,
        jail,
      });
      try {
        const result = await runner.run({ framework: 'node:test', files: ['test/patch.test.ts'], timeoutMs: 30_000 }, neverAborted());
        assert.equal(result.passed, 1, `every test passed: ${result.output}`);
        assert.equal(result.status, 'failed', 'yet the run cannot pass');
        const paths = (result.sideEffects ?? []).map((e) => e.path);
        assert.ok(paths.includes(`${DEP}/index.js`), paths.join(', '));
        assert.ok(
          paths.some((p) => p.startsWith('node_modules/planted')),
          paths.join(', '),
        );
        assert.ok(!paths.some((p) => p.startsWith('node_modules/.vite')), `vite's cache is the runner's to write: ${paths.join(', ')}`);
        assert.match(result.output, /changed the installed packages .*node_modules\/slug-helper\/index\.js/);
        assert.match(result.output, /npm ci/);
        // A second run of the same runner, with nothing written, is judged on its own.
        writeFileSync(path.join(ws.root, 'test', 'patch.test.ts'), `import { test } from 'node:test';\ntest('clean', () => {});\n`);
        const clean = await runner.run({ framework: 'node:test', files: ['test/patch.test.ts'], timeoutMs: 30_000 }, neverAborted());
        assert.equal(clean.status, 'passed', clean.output);
      } finally {
        runner.dispose();
        await jail.dispose();
      }
      assert.match(
        readFileSync(path.join(ws.root, DEP, 'index.js'), 'utf8'),
        /child_process/,
        'what cannot be put back stays, and is named',
      );
    });
  }
});

describe('PackageWatch', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(path.join(tmpdir(), 'tr-packages-'));
    for (const dir of ['node_modules/dep/lib', 'node_modules/.vite', 'packages/app/node_modules/inner'])
      mkdirSync(path.join(root, dir), { recursive: true });
    writeFileSync(path.join(root, 'node_modules/dep/lib/index.js'), DEP_CODE);
    writeFileSync(path.join(root, 'packages/app/node_modules/inner/index.js'), DEP_CODE);
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  for (const notifications of [true, false]) {
    it(`finds an in-place write deep in a package, one in a nested node_modules, and not the caches (${notifications ? 'notifications' : 'change times, where no watch is left'})`, async () => {
      const watch = new PackageWatch(root, { notifications });
      try {
        await watch.add(path.join(root, 'node_modules'));
        await watch.add(path.join(root, 'packages/app/node_modules'));
        assert.deepEqual(await watch.take(), [], 'nothing written yet');
        // Change times are the file system's, coarser than a process's clock.
        await new Promise((r) => setTimeout(r, 20));
        writeFileSync(path.join(root, 'node_modules/dep/lib/index.js'), 'module.exports = () => "patched";\n');
        writeFileSync(path.join(root, 'packages/app/node_modules/inner/index.js'), 'module.exports = 2;\n');
        writeFileSync(path.join(root, 'node_modules/.vite/results.json'), '{}');
        const writes = (await watch.take()).map((w) => w.path);
        assert.ok(writes.includes('node_modules/dep/lib/index.js'), writes.join(', '));
        assert.ok(writes.includes('packages/app/node_modules/inner/index.js'), writes.join(', '));
        assert.ok(!writes.some((w) => w.includes('.vite')), writes.join(', '));
        assert.deepEqual(await watch.take(), [], 'each write is reported once');
      } finally {
        watch.dispose();
      }
    });
  }
});
