import assert from 'node:assert/strict';
import type { TestRunRequest } from '../../../src/core/ports/checks';
import type { TestRunResult } from '../../../src/core/schema/checks';
import type { RunEvent } from '../../../src/core/schema/events';
import type { RunContext } from '../../../src/core/stages/common/context';
import type { GateSettings } from '../../../src/core/stages/common/gateConfig';
import { measureProjectTestBaseline } from '../../../src/core/stages/checks/projectTests';
import { ImportReach } from '../../../src/core/stages/checks/reach';
import { runnerSetupFiles } from '../../../src/core/stages/checks/runnerSetup';
import { projectTestsGate } from '../../../src/core/stages/gates/gateRuns';
import { aManifest } from '../../support/aManifest';
import { aTestRun } from '../../support/aTestRun';
import { MemoryWorkspace } from '../../fakes/memoryWorkspace';

/**
 * The projectTests gate runs the project test files that reach the change through imports, and
 * the baseline the same ones for the scope; the whole suite when the project asks, or when which
 * tests reach the change cannot be worked out. The hostile cases: a change that breaks a project
 * test reachable only through a re-export chain, a runner's setup file, or a module loaded by a
 * computed name must still fail the gate. On the fakes: the baseline, the Coder's write, the gate.
 */

const CHANGED = 'src/price.ts';

/** The project: the changed module, a test that reaches it directly, and one that reaches nothing of it. */
const PROJECT: Record<string, string> = {
  'package.json': '{ "name": "shop" }',
  [CHANGED]: 'export const price = (n: number) => n * 100;\n',
  'src/other.ts': 'export const other = 1;\n',
  'test/price.test.ts': "import { price } from '../src/price';\n",
  'test/other.test.ts': "import { other } from '../src/other';\n",
};

/**
 * Runs the baseline, writes the change (the files in `breaks` fail from then on), then the gate.
 * `runs` holds the files of each run of the project's tests.
 */
async function gateAfterChange(files: Record<string, string>, o: { breaks?: string[]; gates?: Partial<GateSettings> } = {}) {
  const runs: string[][] = [];
  let changed = false;
  const events: RunEvent[] = [];
  const gates: GateSettings = { enabled: ['projectTests'], ...o.gates };
  const ctx = {
    deps: {
      workspace: new MemoryWorkspace(new Map(Object.entries({ ...PROJECT, ...files }))),
      tests: {
        run: (r: TestRunRequest): Promise<TestRunResult> => {
          runs.push([...r.files]);
          const cases = r.files.map((f) => ({
            name: 'works',
            file: f,
            status: changed && o.breaks?.includes(f) ? ('failed' as const) : ('passed' as const),
            durationMs: 1,
          }));
          return Promise.resolve(aTestRun(cases, { framework: 'mocha', command: ['mocha'] }));
        },
      },
      gates,
    },
    log: { events },
    manifest: aManifest({ scope: { write: [{ path: CHANGED, exists: true }] } }),
    signal: new AbortController().signal,
  } as unknown as RunContext;
  const measured = await measureProjectTestBaseline(ctx);
  if (measured) events.push({ type: 'projectTests.baseline', ...measured.baseline } as RunEvent);
  changed = true;
  events.push({ type: 'files.written', by: 'coder', files: [{ path: CHANGED, before: 'a', after: 'b' }] } as unknown as RunEvent);
  const gate = await projectTestsGate({ ctx, settings: gates, attempt: 1 });
  return { gate, runs, baseline: measured?.baseline };
}

describe('pure: the projectTests gate runs the project tests that reach the change', () => {
  it('by default a test that reaches nothing of the scope runs neither in the baseline nor in the gate, and the gate says so', async () => {
    const { gate, runs, baseline } = await gateAfterChange({});
    assert.deepEqual(baseline?.files, ['test/price.test.ts']);
    assert.deepEqual(runs, [['test/price.test.ts'], ['test/price.test.ts']]);
    assert.equal(gate.status, 'passed');
    assert.equal(gate.detail, '1 of 2 test files reaches the change; no test that passed before the run fails now');
    assert.deepEqual(gate.evidence?.kind === 'projectTests' && gate.evidence.selection, { by: 'reach', suite: 2 });
  });

  it('"all": the whole suite runs in the baseline and in the gate, as the project asks', async () => {
    const { gate, runs, baseline } = await gateAfterChange({}, { gates: { projectTests: 'all' } });
    const all = ['test/other.test.ts', 'test/price.test.ts'];
    assert.deepEqual(baseline?.files, all);
    assert.deepEqual(runs, [all, all]);
    assert.match(gate.detail, /^the whole suite \(2 test files\), as the project asks; no test that passed before the run fails now$/);
    assert.deepEqual(gate.evidence?.kind === 'projectTests' && gate.evidence.selection, { by: 'setting' });
  });

  it('hostile: a test that reaches the change only through a chain of re-exports fails the gate', async () => {
    const { gate, runs } = await gateAfterChange(
      {
        'src/index.ts': "export * from './money/index.js';\n",
        'src/money/index.ts': "export { price as priceOf } from '../price';\n",
        'test/api.test.ts': "import { priceOf } from '../src/index';\n",
      },
      { breaks: ['test/api.test.ts'] },
    );
    assert.deepEqual(runs.at(-1), ['test/api.test.ts', 'test/price.test.ts']);
    assert.equal(gate.status, 'failed', gate.detail);
    assert.deepEqual(gate.evidence?.kind === 'projectTests' && gate.evidence.newlyFailing, ['test/api.test.ts › works']);
  });

  it("hostile: a test that imports nothing of the change, and relies on what the runner's setup file did with it, fails the gate: the whole suite runs", async () => {
    const { gate, runs } = await gateAfterChange(
      {
        '.mocharc.json': '{ "require": ["tsx/cjs", "test/setup.ts"], "spec": "test/**/*.test.ts" }',
        'test/setup.ts': "import { price } from '../src/price';\n(globalThis as any).cents = price(1);\n",
        'test/total.test.ts': "import assert from 'node:assert';\nit('totals', () => assert.equal((globalThis as any).cents, 100));\n",
      },
      { breaks: ['test/total.test.ts'] },
    );
    assert.equal(gate.status, 'failed', gate.detail);
    assert.ok(runs.at(-1)?.includes('test/total.test.ts'), JSON.stringify(runs));
    assert.deepEqual(gate.evidence?.kind === 'projectTests' && gate.evidence.newlyFailing, ['test/total.test.ts › works']);
    assert.match(
      gate.detail,
      /^the whole suite \(4 test files\): \.mocharc\.json loads test\/setup\.ts before every test file, and it reaches the change; /,
    );
  });

  it('hostile: a test that loads the changed module by a computed name fails the gate: the whole suite runs', async () => {
    const { gate } = await gateAfterChange(
      { 'test/plugins.test.ts': "const name = 'price';\nit('loads', async () => { await import(`../src/${name}`); });\n" },
      { breaks: ['test/plugins.test.ts'] },
    );
    assert.equal(gate.status, 'failed', gate.detail);
    assert.deepEqual(gate.evidence?.kind === 'projectTests' && gate.evidence.newlyFailing, ['test/plugins.test.ts › works']);
    assert.deepEqual(gate.evidence?.kind === 'projectTests' && gate.evidence.selection, {
      by: 'fallback',
      why: 'which tests reach the change could not be worked out (test/plugins.test.ts loads modules by a computed name)',
    });
  });
});

describe('pure: what the reach of a test cannot tell', () => {
  const ws = (files: Record<string, string>) => new MemoryWorkspace(new Map(Object.entries(files)));

  it('a walk cut off by its limit answers unknown, not "not reached"', async () => {
    const chain = ws({ 'a.ts': "import './b';", 'b.ts': "import './c';", 'c.ts': "import './d';", 'd.ts': 'export {};' });
    const reach = new ImportReach(chain, new Set(['d.ts']));
    assert.equal(await reach.reaches('a.ts'), true);
    assert.deepEqual(await new ImportReach(chain, new Set(['x.ts'])).reaches('a.ts', 2), { unknown: 'a.ts imports more than 2 files' });
    assert.equal(await new ImportReach(chain, new Set(['x.ts'])).reaches('a.ts'), false);
  });

  it('a computed load makes the answer unknown only where what runs is asked', async () => {
    const files = ws({ 't.ts': "import './h';", 'h.ts': 'const m = require(process.env.M!);', 'x.ts': '' });
    assert.equal(await new ImportReach(files, new Set(['x.ts'])).reaches('t.ts'), false, 'a type error cannot come through it');
    assert.deepEqual(await new ImportReach(files, new Set(['x.ts']), 'run').reaches('t.ts'), {
      unknown: 'h.ts loads modules by a computed name',
    });
  });

  it("reads the setup files of mocha's, vitest's and jest's configs, in any of their forms", async () => {
    const found = await runnerSetupFiles(
      ws({
        'package.json': '{ "workspaces": ["pkg/*"], "jest": { "setupFilesAfterEnv": ["<rootDir>/test/jestSetup.ts"] } }',
        '.mocharc.yml': 'require:\n  - ts-node/register\n  - ./test/hooks.ts\nnode-option:\n  - import=./test/loader.mjs\n',
        'test/hooks.ts': '',
        'test/jestSetup.ts': '',
        'test/loader.mjs': '',
        'pkg/a/package.json': '{ "name": "a" }',
        // A comment that names a key, and a string that holds one, are neither.
        'pkg/a/vitest.config.ts':
          "import { defineConfig } from 'vitest/config';\n// setupFiles below\nexport default defineConfig({ test: { include: ['setupFiles/**'], setupFiles: ['./setup/dom.ts'], globalSetup: 'global.ts' } });\n",
        'pkg/a/setup/dom.ts': '',
        'pkg/a/global.ts': '',
      }),
    );
    assert.deepEqual(found, {
      files: [
        { config: '.mocharc.yml', file: 'test/hooks.ts' },
        { config: '.mocharc.yml', file: 'test/loader.mjs' },
        { config: 'package.json', file: 'test/jestSetup.ts' },
        { config: 'pkg/a/vitest.config.ts', file: 'pkg/a/setup/dom.ts' },
        { config: 'pkg/a/vitest.config.ts', file: 'pkg/a/global.ts' },
      ],
    });
  });

  it('a config whose setup files are computed, taken from another file, or unparsable answers unknown', async () => {
    for (const [config, text] of [
      ['vitest.config.ts', "const files = ['./a.ts'];\nexport default { test: { setupFiles: files } };\n"],
      ['vitest.config.mts', "import base from './vitest.base';\nexport default base;\n"],
      ['jest.config.js', 'module.exports = { setupFiles: [`${__dirname}/a.js`] };\n'],
      ['.mocharc.json', '{ "require": ['],
      ['.mocharc.jsonc', '{ "file": [1] }'],
    ]) {
      const found = await runnerSetupFiles(ws({ [config!]: text! }));
      assert.ok('unknown' in found && found.unknown.startsWith(`${config} `), `${config}: ${JSON.stringify(found)}`);
    }
  });
});
