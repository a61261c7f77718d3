import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { linkSharedPackages } from '../../scripts/fixtureLinks.cjs';
import type { TestRunResult } from '../../src/core/schema/checks';
import type { RenderOptions } from '../../src/core/stages/materializer';
import type { TestFramework } from '../../src/core/schema/testPlan';
import { ProcessTestRunner } from '../../src/node/testRunners/testRunner';
import { copyFixture, fixturePlan, writeRendered } from './materializerFixtures';
import { neverAborted, repoRoot } from './tempProject';

/** A materializer fixture whose wrong code fails one rendered case, and the code under test that would make it pass. */
export interface InMemoryAttacks {
  framework: TestFramework;
  render: RenderOptions;
  /** The rendered test file. */
  file: string;
  /** The code under test's entry, which each attack is put at the top of. */
  entry: string;
  /** The entry that exports the right code. */
  right: string;
  /** What the wrong code gets wrong, as the tests' names say it ("split"). */
  wrong: string;
  /** The case the wrong code fails, and one it does not touch, as the report names them. */
  failing: string;
  untouched: string;
  /** Each attack's code, by what it does. */
  attacks: Record<string, string>;
}

/** In the describe that calls it, the tests of the runner over the fixture's wrong code: as installed the failing case fails, and under no attack does it pass. */
export function inMemoryAttacks(a: InMemoryAttacks): void {
  let root: string;
  let index: string;
  let runner: ProcessTestRunner;
  const entry = (): string => path.join(root, a.entry);
  const run = (): Promise<TestRunResult> => runner.run({ framework: a.framework, files: [a.file], timeoutMs: 60_000 }, neverAborted());

  before(() => {
    root = path.join(mkdtempSync(path.join(tmpdir(), 'tr-in-memory-')), 'project');
    copyFixture(a.framework, root, 'wrong');
    writeRendered(root, fixturePlan(a.framework), a.framework, a.render);
    linkSharedPackages(root, path.join(repoRoot, 'node_modules'));
    index = readFileSync(entry(), 'utf8');
    runner = new ProcessTestRunner({
      root,
      nodeTestReporter: path.join(repoRoot, 'dist', 'nodeTestReporter.mjs'),
      fallbackDir: repoRoot,
      nodePath: process.execPath,
    });
  });
  after(() => rmSync(path.dirname(root), { recursive: true, force: true }));

  it(`as installed, the wrong ${a.wrong} fails its case, and the case it does not touch passes`, async () => {
    writeFileSync(entry(), index);
    const r = await run();
    assert.equal(r.status, 'failed', r.output);
    assert.equal(r.cases.find((c) => c.name === a.failing)?.status, 'failed', r.output);
    assert.equal(r.cases.find((c) => c.name === a.untouched)?.status, 'passed', r.output);
  });

  it(`the right ${a.wrong} passes every case, each one seen by the witness`, async () => {
    writeFileSync(entry(), a.right);
    const r = await run();
    assert.equal(r.status, 'passed', r.output);
    assert.equal(r.passed, fixturePlan(a.framework).files[0]!.cases.length);
  });

  for (const [attack, code] of Object.entries(a.attacks)) {
    it(`hostile: ${attack}: the wrong ${a.wrong} still fails`, async () => {
      writeFileSync(entry(), `${code}\n${index}`);
      const r = await run();
      assert.notEqual(r.status, 'passed', r.output);
      assert.ok(!r.cases.some((c) => c.name === a.failing && c.status === 'passed'), JSON.stringify(r.cases, null, 1));
    });
  }
}
