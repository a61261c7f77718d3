import assert from 'node:assert/strict';
import { chmodSync, cpSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { baselineFingerprint, type FingerprintInputs } from '../../../src/node/workspace/baselineFingerprint';

/**
 * The key of a kept baseline must change with everything a project's tests or its type-check
 * can read, or a stale baseline forgives a regression. Each input is changed by one byte (or one
 * variable) in turn, on a project laid out as a real one: its tests read a data file outside
 * src, its packages are installed, its runner has a config. Two checkouts of the same content
 * (a batch's trees) share the key; what the runners rebuild as they run does not change it.
 */

function project(): { base: string; root: string; inputs: (o?: Partial<FingerprintInputs>) => FingerprintInputs } {
  const base = mkdtempSync(path.join(tmpdir(), 'tr-fingerprint-'));
  const root = path.join(base, 'ws');
  const write = (rel: string, text: string) => {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), text);
  };
  write('package.json', '{"name":"p","devDependencies":{"dep":"1.0.0"}}');
  write('package-lock.json', '{"lockfileVersion":3,"packages":{"node_modules/dep":{"version":"1.0.0"}}}');
  write('.mocharc.json', '{"spec":"test/**/*.test.js"}');
  write('src/limit.js', 'exports.limit = 10;\n');
  write('test/limit.test.js', "const data = require('../data/limits.json');\n");
  write('data/limits.json', '{"max":10}');
  write('node_modules/dep/package.json', '{"name":"dep","version":"1.0.0"}');
  write('node_modules/dep/index.js', 'module.exports = 1;\n');
  const product = path.join(base, 'product');
  mkdirSync(product);
  writeFileSync(path.join(product, 'preload.cjs'), '// the test processes preload this\n');
  return {
    base,
    root,
    inputs: (o = {}) => ({
      root,
      env: { PATH: process.env['PATH'] ?? '', LANG: 'C', HOME: path.join(base, 'home-1') },
      nodePath: process.execPath,
      productDir: product,
      settings: { sandbox: true, testCommand: null },
      ...o,
    }),
  };
}

const signal = new AbortController().signal;
const print = (i: FingerprintInputs) => baselineFingerprint(i, signal);

describe('pure: the fingerprint a kept baseline is keyed by', () => {
  let p: ReturnType<typeof project>;
  beforeEach(() => (p = project()));
  afterEach(() => rmSync(p.base, { recursive: true, force: true }));

  it('is the same when nothing changed, and for a second checkout of the same content elsewhere', async () => {
    const a = await print(p.inputs());
    assert.equal(await print(p.inputs()), a);
    // A batch's tree: the same files in another folder, its node_modules a link to the workspace's.
    const other = path.join(p.base, 'tree', 'ws');
    cpSync(p.root, other, { recursive: true, filter: (src) => path.basename(src) !== 'node_modules' });
    symlinkSync(path.join(p.root, 'node_modules'), path.join(other, 'node_modules'), 'dir');
    assert.equal(await print(p.inputs({ root: other })), a);
  });

  const changes: [string, (p: ReturnType<typeof project>) => Partial<FingerprintInputs> | void][] = [
    ['a data file outside src that a test reads', (p) => writeFileSync(path.join(p.root, 'data/limits.json'), '{"max":11}')],
    ['the source', (p) => writeFileSync(path.join(p.root, 'src/limit.js'), 'exports.limit = 11;\n')],
    ['a file added anywhere in the tree', (p) => writeFileSync(path.join(p.root, 'setup.js'), '')],
    ['a file made executable', (p) => chmodSync(path.join(p.root, 'src/limit.js'), 0o755)],
    [
      'the lockfile',
      (p) =>
        writeFileSync(path.join(p.root, 'package-lock.json'), '{"lockfileVersion":3,"packages":{"node_modules/dep":{"version":"1.0.1"}}}'),
    ],
    [
      'an installed package patched in place',
      (p) => writeFileSync(path.join(p.root, 'node_modules/dep/index.js'), 'module.exports = 2;\n'),
    ],
    [
      'a package installed beside the others',
      (p) => {
        mkdirSync(path.join(p.root, 'node_modules/planted'));
        writeFileSync(path.join(p.root, 'node_modules/planted/index.js'), '');
      },
    ],
    ['the runner config', (p) => writeFileSync(path.join(p.root, '.mocharc.json'), '{"spec":"test/**/*.test.js","timeout":1}')],
    ["a variable of the tests' environment", (p) => ({ env: { ...p.inputs().env, NODE_ENV: 'production' } })],
    ['the node that runs the tests', () => ({ nodePath: 'node-that-is-not-here' })],
    ["Ticket Runner's own preload", (p) => writeFileSync(path.join(p.base, 'product', 'preload.cjs'), '// another build\n')],
    ['the sandbox turned off', () => ({ settings: { sandbox: false, testCommand: null } })],
  ];
  for (const [what, change] of changes) {
    it(`changes with ${what}`, async () => {
      const before = await print(p.inputs());
      const o = change(p);
      await new Promise((r) => setTimeout(r, 20));
      assert.notEqual(await print(p.inputs(o ?? {})), before);
    });
  }

  it('changes with a file of a package linked in from outside node_modules (npm link, workspaces), and so does a copy whose node_modules links to it', async () => {
    const outside = path.join(p.base, 'linked-pkg');
    mkdirSync(outside);
    writeFileSync(path.join(outside, 'index.js'), 'module.exports = 1;\n');
    symlinkSync(outside, path.join(p.root, 'node_modules/linked'), 'dir');
    const before = await print(p.inputs());
    // A second copy as the demo makes them: its own node_modules folder, holding the same links.
    const other = path.join(p.base, 'copy', 'ws');
    cpSync(p.root, other, { recursive: true, verbatimSymlinks: true, filter: (src) => !src.includes('node_modules') });
    mkdirSync(path.join(other, 'node_modules'));
    symlinkSync(path.join(p.root, 'node_modules/dep'), path.join(other, 'node_modules/dep'), 'dir');
    symlinkSync(outside, path.join(other, 'node_modules/linked'), 'dir');
    const copy = await print(p.inputs({ root: other }));
    await new Promise((r) => setTimeout(r, 20));
    writeFileSync(path.join(outside, 'index.js'), 'module.exports = 2;\n');
    assert.notEqual(await print(p.inputs()), before, 'the linked package changed');
    assert.notEqual(await print(p.inputs({ root: other })), copy, "the copy's linked package changed too");
  });

  it('changes with a file changed and put back with its old bytes and times (its change time is not the same)', async () => {
    const file = path.join(p.root, 'node_modules/dep/index.js');
    const before = await print(p.inputs());
    const st = statSync(file);
    await new Promise((r) => setTimeout(r, 20));
    writeFileSync(file, 'module.exports = 1;\n');
    utimesSync(file, st.atime, st.mtime);
    assert.notEqual(await print(p.inputs()), before);
  });

  it("does not change with what each command gets of its own (home, temp) nor with the runners' caches in node_modules", async () => {
    const before = await print(p.inputs());
    mkdirSync(path.join(p.root, 'node_modules/.vite/vitest'), { recursive: true });
    writeFileSync(path.join(p.root, 'node_modules/.vite/vitest/results.json'), '{}');
    assert.equal(await print(p.inputs({ env: { ...p.inputs().env, HOME: path.join(p.base, 'home-2'), TMPDIR: '/elsewhere' } })), before);
  });

  it("does not read the run store nor git's folder (the run's own records change with every run)", async () => {
    const before = await print(p.inputs());
    mkdirSync(path.join(p.root, '.ticket-runner/runs'), { recursive: true });
    writeFileSync(path.join(p.root, '.ticket-runner/runs/x.jsonl'), '{}');
    assert.equal(await print(p.inputs()), before);
  });
});
