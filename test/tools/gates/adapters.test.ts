import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { ShellBuild } from '../../../src/node/gates/buildCommand';
import { TscTypeCheck } from '../../../src/node/gates/tscTypeCheck';
import { copyFixture, REPO_ROOT } from '../../support/tempWorkspace';

/** The gates' Node adapters, each against its real tool: tsc (one process per package), the shell. */

describe('gates: the type-check of an npm-workspaces monorepo', function () {
  this.timeout(120_000);
  it("checks the scope's package and the packages that depend on it, each with its tsconfig; a package without one by the root's", async () => {
    const ws = copyFixture('mono-ws');
    try {
      const gate = new TscTypeCheck({ root: ws.root, nodePath: process.execPath });
      const signal = new AbortController().signal;
      const app = await gate.check(signal, ['packages/invoice/src/invoice.ts']);
      assert.deepEqual([app.status, app.detail.split('; ').map((d) => d.split(':')[0])], ['passed', ['packages/invoice/tsconfig.json']]);
      unlinkSync(path.join(ws.root, 'packages', 'money', 'tsconfig.json'));
      writeFileSync(
        path.join(ws.root, 'tsconfig.json'),
        JSON.stringify({ extends: './tsconfig.base.json', include: ['packages/money/src'] }),
      );
      const lib = await gate.check(signal, ['packages/money/src/money.ts']);
      assert.deepEqual(
        [lib.status, lib.detail.split('; ').map((d) => d.split(':')[0])],
        ['passed', ['tsconfig.json', 'packages/invoice/tsconfig.json']],
      );
    } finally {
      ws.dispose();
    }
  });
});

describe('gates: the Node adapters around their tools', function () {
  this.timeout(30_000);
  let dir = '';
  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'tr-gates-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));
  const signal = new AbortController().signal;

  it("type-checks with the workspace's own tsc, falls back to the bundled one and says so, and skips without a tsconfig", async () => {
    assert.equal(new TscTypeCheck({ root: REPO_ROOT }).tool()?.source, 'workspace');
    const bundled = new TscTypeCheck({ root: dir, fallbackDir: REPO_ROOT });
    assert.deepEqual([bundled.tool()?.source, bundled.tool()?.version], ['bundled', '5.9.3']);
    assert.equal(new TscTypeCheck({ root: dir }).tool(), undefined);
    const none = await bundled.check(signal);
    assert.deepEqual([none.status, none.detail], ['skipped', 'no tsconfig.json: nothing project-wide to check']);
    writeFileSync(
      path.join(dir, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { strict: true, noEmit: true, types: [] }, include: ['*.ts'] }),
    );
    writeFileSync(path.join(dir, 'a.ts'), 'export const n: number = "one";\n');
    const r = await bundled.check(signal);
    assert.equal(r.status, 'failed');
    assert.match(r.detail, /^tsc 5\.9\.3 \(bundled: the workspace has no typescript\)$/);
    assert.deepEqual(
      r.diagnostics.map((d) => [d.file, d.line, d.code]),
      [['a.ts', 1, 'TS2322']],
    );
  });

  it('runs the build command through the shell, and kills it with its group past the time limit', async () => {
    const build = new ShellBuild(dir);
    assert.deepEqual([(await build.run('echo built && exit 0', 10_000, signal)).status], ['passed']);
    const failed = await build.run('echo broken >&2; exit 3', 10_000, signal);
    assert.deepEqual([failed.status, failed.exitCode], ['failed', 3]);
    assert.match(failed.output, /broken/);
    const slow = await build.run('sleep 20', 300, signal);
    assert.equal(slow.status, 'timeout');
    assert.ok(slow.durationMs < 5_000, `killed in ${slow.durationMs} ms`);
  });
});
