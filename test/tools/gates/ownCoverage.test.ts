import assert from 'node:assert/strict';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { CoverageResult } from '../../../src/core/ports/gates';
import { ProjectCoverageRunner } from '../../../src/node/gates/coverageRunner';
import { readIstanbulCoverage } from '../../../src/node/gates/istanbulCoverage';
import { ProcessJail } from '../../../src/node/sandbox/processJail';
import { copyFixture, fixturePath, REPO_ROOT, type FixtureName } from '../../support/tempWorkspace';

/**
 * Coverage from the project's own tool (vitest's, jest's), read from istanbul's
 * coverage-final.json, against what would make it lie: code under test that forges the report,
 * a project config that leaves the changed file out, the project's own thresholds, a run that
 * fails or times out. Every run goes through the run's jail with the OS sandbox as it comes.
 */

const hitsOf = (r: CoverageResult, file: string): Map<number, number> => new Map(r.files.find((f) => f.file === file)?.lines ?? []);

/** Appended to a module the tests load: writes a report in which every line ran, wherever it can find one to write, and keeps writing it. */
const FORGER = `
import { readdirSync as forgerReaddir, readFileSync as forgerRead, writeFileSync as forgerWrite, mkdirSync as forgerMkdir } from 'node:fs';
{
  const file = new URL(import.meta.url).pathname;
  const forged = JSON.stringify({ [file]: { path: file, statementMap: { '0': { start: { line: 24, column: 2 }, end: { line: 24, column: 20 } }, '1': { start: { line: 25, column: 2 }, end: { line: 25, column: 60 } } }, s: { '0': 9, '1': 9 }, fnMap: {}, f: {}, branchMap: {}, b: {} } });
  const dirs = ['coverage'];
  for (const pid of forgerReaddir('/proc').filter((p) => /^\\d+$/.test(p))) {
    try {
      for (const arg of forgerRead(\`/proc/\${pid}/cmdline\`, 'utf8').split('\\0')) if (arg.startsWith('--coverage.reportsDirectory=')) dirs.push(arg.slice('--coverage.reportsDirectory='.length));
    } catch {}
  }
  for (const dir of dirs) {
    try {
      forgerMkdir(dir, { recursive: true });
      forgerWrite(\`\${dir}/coverage-final.json\`, forged);
      console.log(\`FORGED \${dir}\`);
      // And again every few milliseconds for as long as this process lives, over what the runner writes.
      setInterval(() => { try { forgerMkdir(\`\${dir}/report\`, { recursive: true }); forgerWrite(\`\${dir}/report/coverage-final.json\`, forged); } catch {} }, 2);
    } catch (err) {
      console.log(\`FORGE REFUSED \${dir}: \${String(err)}\`);
    }
  }
}
`;

/**
 * Appended to a CommonJS module jest loads: in the process that writes the report (jest runs a
 * single test file in its own process unless told otherwise), it turns the report's file into
 * one where every line ran, by patching the fs module they share.
 */
const JEST_FORGER = `
// eslint-disable-next-line @typescript-eslint/no-require-imports
const forgerFs: typeof import('fs') = require('fs');
{
  const realOpen = forgerFs.openSync;
  const lines = forgerFs.readFileSync(__filename, 'utf8').split('\\n').length;
  const statementMap = Object.fromEntries(Array.from({ length: lines }, (_, i) => [String(i), { start: { line: i + 1, column: 0 }, end: { line: i + 1, column: 1 } }]));
  const s = Object.fromEntries(Array.from({ length: lines }, (_, i) => [String(i), 1]));
  const forged = JSON.stringify({ [__filename]: { path: __filename, statementMap, s, fnMap: {}, f: {}, branchMap: {}, b: {} } });
  (forgerFs as { openSync: unknown }).openSync = (file: string, ...rest: unknown[]) => {
    if (String(file).endsWith('coverage-final.json')) {
      forgerFs.writeFileSync(file, forged);
      return realOpen('/dev/null', 'w');
    }
    return (realOpen as (...a: unknown[]) => number)(file, ...rest);
  };
  console.log('FORGER INSTALLED in', process.argv[1]);
}
`;

describe("gates: coverage from the project's own tool", function () {
  this.timeout(120_000);
  let ws: { root: string; dispose: () => void };
  let jail: ProcessJail;
  const open = async (name: FixtureName) => {
    ws = copyFixture(name);
    jail = await ProcessJail.open({ root: ws.root, protect: [path.join(ws.root, '.tickets')], parentEnv: process.env });
    return new ProjectCoverageRunner({
      root: ws.root,
      nodeTestReporter: path.join(REPO_ROOT, 'dist', 'nodeTestReporter.mjs'),
      fallbackDir: REPO_ROOT,
      nodePath: process.execPath,
      jail,
    });
  };
  afterEach(async () => {
    await jail.dispose();
    ws.dispose();
  });
  const signal = new AbortController().signal;
  const vitest = (measure: string[], timeoutMs = 60_000) => ({
    framework: 'vitest' as const,
    files: ['test/money.test.ts'],
    timeoutMs,
    measure,
  });

  it("which runs measure as they judge: node:test and vitest with its v8 provider; vitest with istanbul's provider alone, and jest (babel), measure in the gate's own run", async () => {
    const runner = await open('shop-esm');
    assert.deepEqual(
      (['node:test', 'mocha', 'vitest', 'jest'] as const).map((f) => runner.measuresAsItRuns(f)),
      [true, true, true, false],
    );
    // A project whose only coverage package is istanbul's, with no Ticket Runner install to fall back on.
    const root = mkdtempSync(path.join(tmpdir(), 'tr-istanbul-only-'));
    try {
      const pkg = path.join(root, 'node_modules', '@vitest', 'coverage-istanbul');
      mkdirSync(pkg, { recursive: true });
      writeFileSync(path.join(pkg, 'package.json'), JSON.stringify({ name: '@vitest/coverage-istanbul', version: '4.1.12' }));
      writeFileSync(path.join(root, 'package.json'), JSON.stringify({ name: 'istanbul-only', private: true }));
      const istanbul = new ProjectCoverageRunner({
        root,
        nodeTestReporter: path.join(REPO_ROOT, 'dist', 'nodeTestReporter.mjs'),
        fallbackDir: path.join(root, 'none'),
        nodePath: process.execPath,
      });
      assert.equal(istanbul.measuresAsItRuns('vitest'), false);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it("vitest: the changed files' line hits from its v8 coverage, in a folder outside the workspace, a file the tests never load included at 0", async () => {
    const runner = await open('shop-esm');
    const r = await runner.run(vitest(['src/lib/money.ts', 'src/cart/tax.ts']), signal);
    assert.equal(r.status, 'measured', r.detail);
    assert.equal(r.source, 'vitest');
    assert.equal(r.tests?.status, 'passed', r.tests?.output);
    const money = hitsOf(r, 'src/lib/money.ts');
    assert.ok((money.get(14) ?? 0) > 0, 'money() ran');
    assert.deepEqual([money.get(24), money.get(25)], [0, 0], 'subtract() never ran');
    assert.ok(
      [...hitsOf(r, 'src/cart/tax.ts').values()].every((n) => n === 0) && hitsOf(r, 'src/cart/tax.ts').size > 0,
      'a file no test loads is reported, every line at 0',
    );
    assert.deepEqual(r.absent, []);
    assert.equal(existsSync(path.join(ws.root, 'coverage')), false, 'nothing is written where the project config points');
  });

  it("vitest: code under test that forges a full report, in the workspace and in the folder it finds on the command line, is overwritten by the runner's own", async () => {
    const runner = await open('shop-esm');
    appendFileSync(path.join(ws.root, 'src/lib/money.ts'), FORGER);
    const r = await runner.run(vitest(['src/lib/money.ts']), signal);
    assert.equal(r.tests?.status, 'passed', r.tests?.output);
    assert.match(r.tests?.output ?? '', /FORGED .*ticket-runner-coverage-/, 'the forger found the report folder and wrote it');
    assert.equal(r.status, 'measured', r.detail);
    assert.deepEqual(
      [hitsOf(r, 'src/lib/money.ts').get(24), hitsOf(r, 'src/lib/money.ts').get(25)],
      [0, 0],
      "the measure is the runner's, not the forger's",
    );
  });

  it('vitest: a config that excludes the changed file leaves it out of the report, and the port says so (the gate counts it as not run)', async () => {
    const runner = await open('shop-esm');
    const config = path.join(ws.root, 'vitest.config.ts');
    writeFileSync(
      config,
      readFileSync(config, 'utf8').replace("include: ['src/**/*.ts']", "include: ['src/**/*.ts'], exclude: ['src/lib/**']"),
    );
    const r = await runner.run(vitest(['src/lib/money.ts']), signal);
    assert.equal(r.status, 'measured', r.detail);
    assert.deepEqual(r.files, []);
    assert.deepEqual(r.absent, ['src/lib/money.ts']);
  });

  it("vitest: the project's own thresholds fail the runner after every test passed: the tests count as passed and the measure stands, unless something else failed too", async () => {
    const runner = await open('shop-esm');
    const config = path.join(ws.root, 'vitest.config.ts');
    writeFileSync(
      config,
      readFileSync(config, 'utf8').replace(
        "include: ['src/**/*.ts']",
        "include: ['src/**/*.ts'], thresholds: { lines: 100, autoUpdate: true }",
      ),
    );
    const before = readFileSync(config, 'utf8');
    const r = await runner.run(vitest(['src/lib/money.ts']), signal);
    assert.match(r.tests?.output ?? '', /does not meet global threshold \(100%\)/);
    assert.equal(r.tests?.status, 'passed', r.tests?.output);
    assert.match(r.tests?.output ?? '', /project's own coverage thresholds, which the coverage gate does not judge/);
    assert.deepEqual([hitsOf(r, 'src/lib/money.ts').get(24)], [0]);
    assert.equal(readFileSync(config, 'utf8'), before, 'the thresholds are not written back to the config');

    // The same thresholds as cover for an error outside any test: exit 1 is then not theirs alone.
    appendFileSync(path.join(ws.root, 'src/lib/money.ts'), "\nvoid Promise.reject(new Error('trouble outside any test'));\n");
    const hidden = await runner.run(vitest(['src/lib/money.ts']), signal);
    assert.match(hidden.tests?.output ?? '', /does not meet global threshold \(100%\)/);
    assert.match(hidden.tests?.output ?? '', /trouble outside any test/);
    assert.deepEqual([hidden.tests?.status, hidden.files], ['error', []]);
  });

  it('vitest: a failing test under coverage, or a run that times out, gives no measure', async () => {
    const runner = await open('shop-esm');
    const money = path.join(ws.root, 'src/lib/money.ts');
    writeFileSync(money, readFileSync(money, 'utf8').replace('return { cents: a.cents + b.cents', 'return { cents: a.cents + b.cents + 1'));
    const failed = await runner.run(vitest(['src/lib/money.ts']), signal);
    assert.deepEqual([failed.tests?.status, failed.files], ['failed', []]);
    const slow = await runner.run(vitest(['src/lib/money.ts'], 300), signal);
    assert.deepEqual([slow.tests?.status, slow.files], ['timeout', []]);
  });

  it('vitest with no coverage package: the gate is told it cannot measure, and what to install', async () => {
    await open('shop-esm');
    rmSync(path.join(ws.root, 'node_modules', '@vitest'), { recursive: true, force: true });
    const bare = new ProjectCoverageRunner({
      root: ws.root,
      nodeTestReporter: path.join(REPO_ROOT, 'dist', 'nodeTestReporter.mjs'),
      nodePath: process.execPath,
      jail,
    });
    const r = await bare.run(vitest(['src/lib/money.ts']), signal);
    assert.deepEqual([r.status, r.tests], ['unavailable', undefined]);
    assert.match(r.detail ?? '', /add it to the devDependencies/);
  });

  it("jest: the changed file's hits from jest's own coverage, the project's coverageThreshold turned off on the command line", async () => {
    const runner = await open('inventory-jest');
    writeFileSync(
      path.join(ws.root, 'src/pricing.ts'),
      readFileSync(path.join(fixturePath('inventory-jest'), '.tickets/answers/INV-3/attempt1.ts'), 'utf8'),
    );
    const r = await runner.run(
      { framework: 'jest', files: ['test/pricing.test.ts'], timeoutMs: 60_000, measure: ['src/pricing.ts', 'src/stock.ts'] },
      signal,
    );
    assert.equal(r.status, 'measured', r.detail);
    assert.equal(r.source, 'jest');
    assert.equal(r.tests?.status, 'passed', r.tests?.output);
    assert.doesNotMatch(r.tests?.output ?? '', /coverage threshold/);
    const pricing = hitsOf(r, 'src/pricing.ts');
    const text = readFileSync(path.join(ws.root, 'src/pricing.ts'), 'utf8').split('\n');
    const line = (s: string) => text.findIndex((l) => l.includes(s)) + 1;
    assert.ok((pricing.get(line('const unitCents = unitPrice(list, sku);')) ?? 0) > 0);
    assert.equal(pricing.get(line('* 15) / 100);')), 0, "the TypeScript line, mapped through ts-jest's source map");
    // jest finds files the tests never load only under its roots (here test/): it leaves them out.
    assert.deepEqual(r.absent, ['src/stock.ts']);
  });

  it('jest: code under test that patches fs in the process writing the report cannot forge it: jest runs it in a worker of its own', async () => {
    const runner = await open('inventory-jest');
    writeFileSync(
      path.join(ws.root, 'src/pricing.ts'),
      readFileSync(path.join(fixturePath('inventory-jest'), '.tickets/answers/INV-3/attempt1.ts'), 'utf8') + JEST_FORGER,
    );
    const r = await runner.run(
      { framework: 'jest', files: ['test/pricing.test.ts'], timeoutMs: 60_000, measure: ['src/pricing.ts'] },
      signal,
    );
    assert.equal(r.tests?.status, 'passed', r.tests?.output);
    assert.match(r.tests?.output ?? '', /FORGER INSTALLED in .*processChild\.js/, 'the forger ran, in a jest worker');
    const text = readFileSync(path.join(ws.root, 'src/pricing.ts'), 'utf8').split('\n');
    assert.equal(hitsOf(r, 'src/pricing.ts').get(text.findIndex((l) => l.includes('* 15) / 100);')) + 1), 0);
  });
});

describe("gates: reading istanbul's coverage-final.json", () => {
  let root: string;
  before(() => {
    root = mkdtempSync(path.join(tmpdir(), 'tr-istanbul-'));
    writeFileSync(path.join(root, 'a.ts'), 'const a = 1;\nif (a) {\n  run();\n}\n');
  });
  after(() => rmSync(root, { recursive: true, force: true }));
  const report = (file: string, statements: [number, number][]) =>
    JSON.stringify({
      [file]: {
        path: file,
        statementMap: Object.fromEntries(
          statements.map(([line], i) => [String(i), { start: { line, column: 0 }, end: { line, column: 5 } }]),
        ),
        s: Object.fromEntries(statements.map(([, n], i) => [String(i), n])),
      },
    });

  it('gives a line the most hits of the statements that start on it, and keeps only the files asked for', async () => {
    const text = JSON.stringify({
      ...JSON.parse(
        report(path.join(root, 'a.ts'), [
          [1, 1],
          [2, 1],
          [3, 0],
          [3, 2],
        ]),
      ),
      ...JSON.parse(report(path.join(root, 'b.ts'), [[1, 1]])),
    });
    assert.deepEqual(await readIstanbulCoverage(text, root, ['a.ts']), [
      {
        file: 'a.ts',
        lines: [
          [1, 1],
          [2, 1],
          [3, 2],
        ],
      },
    ]);
  });

  it('refuses a report that is not one, or not one of this code', async () => {
    await assert.rejects(readIstanbulCoverage('{"a": ', root, ['a.ts']), /not JSON/);
    await assert.rejects(
      readIstanbulCoverage(JSON.stringify({ x: { path: 'x', statementMap: {}, s: { '0': -1 } } }), root, ['a.ts']),
      /not istanbul's coverage-final\.json/,
    );
    await assert.rejects(
      readIstanbulCoverage(
        report(path.join(root, 'a.ts'), [
          [1, 1],
          [40, 3],
        ]),
        root,
        ['a.ts'],
      ),
      /names line 40 of a\.ts, which has 5 lines: it is not a report of this code/,
    );
    const noCount = JSON.stringify({
      f: { path: path.join(root, 'a.ts'), statementMap: { '0': { start: { line: 1 }, end: { line: 1 } } }, s: {} },
    });
    await assert.rejects(readIstanbulCoverage(noCount, root, ['a.ts']), /statement 0 of .* has no count/);
  });
});
