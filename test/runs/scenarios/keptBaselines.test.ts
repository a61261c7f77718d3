import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { RunResult } from '../../../src/core';
import type { WireOptions } from '../../../src/node/wire';
import { logEvents, rollback, runTicket } from '../../support/scenario';
import { tinyTicket } from '../../support/tinyProject';

/**
 * Baselines kept between runs must never forgive a regression. The project's own test `one is
 * one` reads something outside src (a data file, an environment variable, an installed
 * package). Run 1 measures its baseline with that input one way; it is rolled back, so the code
 * is as it was; the input is changed; run 2's Coder then breaks `one`. The test failed before
 * run 1 and passes before run 2: run 2 must measure afresh and fail on the broken test. Had it
 * reused run 1's baseline, the failure would be "already failing" and forgiven. With the input
 * unchanged, run 2 reuses run 1's baseline, says so, and still fails. Hostile too: an entry the
 * code under test rewrote, and two runs at once on one key.
 */

const GOOD = 'exports.one = 1;\n\nexports.double = function double(n) {\n  return n * 2;\n};\n';
// The ticket's own test passes; the project's `one is one` breaks.
const BREAKS_ONE = 'exports.one = 2;\n\nexports.double = function double(n) {\n  return n * 2;\n};\n';

const PROJECT_TEST = `const { test } = require('node:test');
const assert = require('node:assert');
const { readFileSync } = require('node:fs');
const path = require('node:path');
const { one } = require('../src/math');
const flag = readFileSync(path.join(__dirname, '..', 'data', 'flag.txt'), 'utf8').trim();
const dep = require('dep');
test('one is one', () => {
  assert.equal(flag, 'ok', 'the data file says the suite is broken');
  assert.equal(process.env.ONE_SUITE, 'ok', 'the environment says the suite is broken');
  assert.equal(dep, 'ok', 'the installed package says the suite is broken');
  assert.equal(one, 1);
});
`;

/** A tiny ticket, and a script whose Coder writes `source`. */
function ticket(root: string, id: string, source: string): void {
  writeFileSync(path.join(root, '.tickets', `${id}.ticket.json`), JSON.stringify(tinyTicket(id), null, 2));
  writeFileSync(
    path.join(root, '.tickets', `${id}.script.json`),
    JSON.stringify({ coder: [{ expect: { attempt: 1 }, files: { 'src/math.js': source } }], debugger: [] }, null, 2),
  );
}

interface Project {
  base: string;
  root: string;
  set: (what: 'flag' | 'env' | 'dep', ok: boolean) => void;
}

/** A project whose own test reads a data file, a variable and an installed package; GOOD and BREAKS tickets; every input "ok". */
function project(): Project {
  const base = mkdtempSync(path.join(tmpdir(), 'tr-kept-'));
  const root = path.join(base, 'one');
  const at = (rel: string) => path.join(root, rel);
  for (const dir of ['src', 'test', 'data', '.tickets', 'node_modules/dep']) mkdirSync(at(dir), { recursive: true });
  writeFileSync(at('package.json'), JSON.stringify({ name: 'one', private: true, type: 'commonjs', dependencies: { dep: '1.0.0' } }));
  writeFileSync(at('src/math.js'), 'exports.one = 1;\n');
  writeFileSync(at('test/one.test.js'), PROJECT_TEST);
  writeFileSync(at('node_modules/dep/package.json'), JSON.stringify({ name: 'dep', version: '1.0.0', main: 'index.js' }));
  ticket(root, 'GOOD', GOOD);
  ticket(root, 'BREAKS', BREAKS_ONE);
  const p: Project = {
    base,
    root,
    set: (what, ok) => {
      if (what === 'flag') writeFileSync(at('data/flag.txt'), ok ? 'ok\n' : 'broken\n');
      else if (what === 'dep')
        writeFileSync(at('node_modules/dep/index.js'), `module.exports = ${JSON.stringify(ok ? 'ok' : 'broken')};\n`);
      else process.env['ONE_SUITE'] = ok ? 'ok' : 'broken';
    },
  };
  for (const what of ['flag', 'env', 'dep'] as const) p.set(what, true);
  return p;
}

const wire = (o: Partial<WireOptions> = {}): Partial<WireOptions> => ({ passEnv: ['ONE_SUITE'], ...o });
const run = (root: string, id: 'GOOD' | 'BREAKS', o: Partial<WireOptions> = {}) => runTicket(root, id, { attempts: 1, wire: wire(o) });

function baselineOf(root: string, r: RunResult) {
  const e = logEvents(root, r.runId).find((x) => x.type === 'projectTests.baseline');
  assert.ok(e && e.type === 'projectTests.baseline', 'the run measured the project tests before its first write');
  return e;
}

const newlyFailing = (root: string, r: RunResult): string[] =>
  logEvents(root, r.runId).flatMap((e) => (e.type === 'projectTests.ran' ? e.newlyFailing : []));

describe('runs: baselines kept between runs never forgive a regression', function () {
  this.timeout(240_000);
  const made: Project[] = [];
  const fresh = () => {
    const p = project();
    made.push(p);
    return p;
  };
  after(() => {
    delete process.env['ONE_SUITE'];
    for (const p of made) rmSync(p.base, { recursive: true, force: true });
  });

  it("nothing changed: the second run reuses the first run's baseline, says so, and still fails on the test it breaks", async () => {
    const p = fresh();
    const first = await run(p.root, 'GOOD');
    assert.equal(first.state.status, 'passed', JSON.stringify(first.state.finished));
    await rollback(p.root, first.runId);
    const second = await run(p.root, 'BREAKS');
    assert.equal(baselineOf(p.root, second).reusedFrom?.runId, first.runId, 'the baseline came from the first run');
    assert.notEqual(second.state.status, 'passed');
    assert.deepEqual(newlyFailing(p.root, second), ['test/one.test.js › one is one']);
  });

  for (const what of ['flag', 'env', 'dep'] as const) {
    const input = { flag: 'a data file outside src', env: 'an environment variable the tests read', dep: 'an installed package' }[what];
    it(`${input} that changed between the runs: measured afresh, and the test the change breaks fails the run`, async () => {
      const p = fresh();
      p.set(what, false); // The project's test fails before the first run: a pre-existing failure.
      const first = await run(p.root, 'GOOD');
      assert.equal(first.state.status, 'passed', JSON.stringify(first.state.finished));
      assert.deepEqual(baselineOf(p.root, first).failing, ['test/one.test.js › one is one']);
      await rollback(p.root, first.runId);
      p.set(what, true); // Now it passes before the run: breaking it is the run's doing.
      const second = await run(p.root, 'BREAKS');
      // First what a stale baseline would do: a pass.
      assert.notEqual(second.state.status, 'passed', 'a regression is never forgiven');
      const baseline = baselineOf(p.root, second);
      assert.equal(baseline.reusedFrom, undefined, 'measured afresh');
      assert.deepEqual(baseline.failing, []);
      assert.deepEqual(newlyFailing(p.root, second), ['test/one.test.js › one is one']);
    });
  }

  it('a kept entry rewritten as code under test could (without the sandbox) (without the sandbox) is refused: measured afresh, and the regression fails the run', async () => {
    const p = fresh();
    const first = await run(p.root, 'GOOD', { withoutSandbox: 'the test of what holds without it' });
    await rollback(p.root, first.runId);
    // What code under test running as the user could do: mark the case as failing before the run, so that breaking it is forgiven.
    const store = path.join(p.root, '.ticket-runner', 'baselines');
    for (const name of readdirSync(store).filter((n) => n.endsWith('.json'))) {
      const file = path.join(store, name);
      writeFileSync(file, readFileSync(file, 'utf8').replaceAll('"status":"passed"', '"status":"failed"'));
    }
    const second = await run(p.root, 'BREAKS', { withoutSandbox: 'the test of what holds without it' });
    assert.notEqual(second.state.status, 'passed', 'a regression is never forgiven');
    assert.equal(baselineOf(p.root, second).reusedFrom, undefined, 'the rewritten entry was refused');
    assert.deepEqual(newlyFailing(p.root, second), ['test/one.test.js › one is one']);
  });

  it('two runs at once on one key (two checkouts of one commit, one store): one measures, the other waits and reuses', async () => {
    const p = fresh();
    const twin = path.join(p.base, 'twin', 'one');
    // As a batch makes its trees: the same files, and a link to the workspace's installed packages.
    cpSync(p.root, twin, { recursive: true, filter: (src) => path.basename(src) !== 'node_modules' });
    symlinkSync(path.join(p.root, 'node_modules'), path.join(twin, 'node_modules'), 'dir');
    const shared = path.join(p.base, 'shared-baselines');
    const [a, b] = await Promise.all([run(p.root, 'GOOD', { keptBaselinesDir: shared }), run(twin, 'GOOD', { keptBaselinesDir: shared })]);
    const reused = [baselineOf(p.root, a).reusedFrom?.runId, baselineOf(twin, b).reusedFrom?.runId];
    assert.deepEqual(reused.filter(Boolean).length, 1, `one of the two reused the other's: ${JSON.stringify(reused)}`);
    assert.ok(reused.includes(a.runId) || reused.includes(b.runId));
    assert.equal(a.state.status, 'passed');
    assert.equal(b.state.status, 'passed');
  });
});
