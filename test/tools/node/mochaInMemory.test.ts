import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { linkSharedPackages } from '../../../scripts/fixtureLinks.cjs';
import type { TestRunResult } from '../../../src/core/schema/checks';
import { caseName } from '../../../src/core/stages/materializer/render';
import { ProcessTestRunner } from '../../../src/node/testRunners/testRunner';
import { copyFixture, fixturePlan, writeRendered } from '../../support/materializerFixtures';
import { neverAborted, repoRoot } from '../../support/tempProject';

/** The rendered cases' names in their suite, as a test file can declare them again. */
const PLANNED = fixturePlan('mocha').files[0]!.cases.map(caseName);

/** Reaches the mocha that runs the tests, as the code under test can: from its own folder, at import. */
const MOCHA = `import { createRequire } from 'node:module';
const load = createRequire(import.meta.url);
const { Runner } = load('mocha/lib/runner.js');
`;

/**
 * Code under test that changes, in memory and at import, how mocha judges: no file of the runner
 * is written, so the record of the judging tools sees nothing. Each would make the wrong split pass.
 */
const IN_MEMORY: Record<string, string> = {
  'Runner.prototype.fail reports each failure as a pass': `${MOCHA}
Runner.prototype.fail = function (runnable) {
  if (runnable && runnable.type === 'test') { runnable.state = 'passed'; this.emit('pass', runnable); }
};`,
  "Runner.prototype.emit turns each 'fail' into a 'pass' and counts no failure": `${MOCHA}
const emit = Runner.prototype.emit;
Runner.prototype.emit = function (event, runnable, ...rest) {
  if (event === 'fail' && runnable && runnable.type === 'test') { this.failures--; runnable.state = 'passed'; return emit.call(this, 'pass', runnable); }
  return emit.call(this, event, runnable, ...rest);
};`,
  'the json reporter: its report rewritten as it is written, every failure a pass, and the exit code 0': `import fs from 'node:fs';
const write = fs.writeFileSync;
fs.writeFileSync = function (file, text, ...rest) {
  if (typeof text === 'string' && text.includes('"failures"')) {
    const report = JSON.parse(text);
    report.passes.push(...report.failures.map(({ err, ...t }) => t));
    report.failures = [];
    report.stats.failures = 0;
    text = JSON.stringify(report);
  }
  return write.call(this, file, text, ...rest);
};
process.on('exit', () => { process.exitCode = 0; });`,
  "each test's function swapped for one that passes, from a root hook": `before(function () {
  const walk = (suite) => { for (const t of suite.tests) t.fn = function () {}; suite.suites.forEach(walk); };
  walk(this.test.parent);
});`,
  'the global it wrapped, so each case registers a function that passes': `const it = globalThis.it;
globalThis.it = function (title) { return it.call(this, title, function () {}); };`,
  "each describe's body kept from running, and the planned cases declared again with functions that pass": `const call = Function.prototype.call;
Function.prototype.call = function (self, ...args) {
  if (self && self.title === 'duration' && !self.root && /assertionsStillFail/.test(String(this))) return undefined;
  return call.apply(this, [self, ...args]);
};
describe('duration', () => {
  for (const name of ${JSON.stringify(PLANNED)}) it(name, () => {});
});`,
};

/** The materializer's mocha project with its wrong split, its plan rendered, mocha installed beside it. */
function wrongProject(): string {
  const root = path.join(mkdtempSync(path.join(tmpdir(), 'tr-mocha-memory-')), 'durations');
  copyFixture('mocha', root, 'wrong');
  writeRendered(root, fixturePlan('mocha'), 'mocha', { language: 'js', moduleKind: 'esm' });
  linkSharedPackages(root, path.join(repoRoot, 'node_modules'));
  return root;
}

const SPLIT = 'duration [AC2] splits seconds into units';

describe('mocha judged when the code under test patches it in memory', function () {
  this.timeout(120_000);
  let root: string;
  let index: string;
  let runner: ProcessTestRunner;
  const run = (): Promise<TestRunResult> =>
    runner.run({ framework: 'mocha', files: ['test/duration.test.js'], timeoutMs: 60_000 }, neverAborted());

  before(() => {
    root = wrongProject();
    index = readFileSync(path.join(root, 'src', 'index.js'), 'utf8');
    runner = new ProcessTestRunner({
      root,
      nodeTestReporter: path.join(repoRoot, 'dist', 'nodeTestReporter.mjs'),
      fallbackDir: repoRoot,
      nodePath: process.execPath,
    });
  });
  after(() => rmSync(path.dirname(root), { recursive: true, force: true }));

  it('as installed, the wrong split fails its case, and the case it does not touch passes', async () => {
    writeFileSync(path.join(root, 'src', 'index.js'), index);
    const r = await run();
    assert.equal(r.status, 'failed', r.output);
    assert.equal(r.cases.find((c) => c.name === SPLIT)?.status, 'failed', r.output);
    assert.equal(r.cases.find((c) => c.name === 'duration [AC1] reads durations')?.status, 'passed', r.output);
  });

  it('the right split passes every case, each one seen by the witness', async () => {
    writeFileSync(path.join(root, 'src', 'index.js'), "export * from './duration.js';\nexport { default } from './duration.js';\n");
    const r = await run();
    assert.equal(r.status, 'passed', r.output);
    assert.equal(r.passed, PLANNED.length);
  });

  for (const [attack, code] of Object.entries(IN_MEMORY)) {
    it(`hostile: ${attack}: the wrong split still fails`, async () => {
      writeFileSync(path.join(root, 'src', 'index.js'), `${code}\n${index}`);
      const r = await run();
      assert.notEqual(r.status, 'passed', r.output);
      assert.ok(!r.cases.some((c) => c.name === SPLIT && c.status === 'passed'), JSON.stringify(r.cases, null, 1));
    });
  }
});
