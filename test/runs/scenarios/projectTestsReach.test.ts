import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { loadEvents } from '../../support/rungRuns';
import { runTicket } from '../../support/scenario';
import { tinyProject } from '../../support/tinyProject';

/**
 * The projectTests gate runs the project test files that reach the change, and the whole suite
 * when which ones do cannot be worked out. Whole runs of the tiny project on the node test runner
 * in the sandbox, with the scripted model: the Coder adds `double` and, with it, changes what
 * `one` is.
 */

/** The Coder's answer, for the attempt and for the gate's repair alike: `one` is no longer 1. */
const ANSWER = { files: { 'src/math.js': "exports.one = 'one';\n\nexports.double = (n) => n * 2;\n" } };

/** The tiny project, whose `test/one.test.js` loads the math module as `load` says, beside a test that loads nothing of it. */
function project(load: string): { root: string; dispose: () => void } {
  const p = tinyProject(1);
  const write = (rel: string, text: string) => {
    mkdirSync(path.dirname(path.join(p.root, rel)), { recursive: true });
    writeFileSync(path.join(p.root, rel), text);
  };
  write(
    'test/one.test.js',
    `const assert = require('node:assert');\nconst { test } = require('node:test');\n${load}\ntest('one is 1', () => assert.equal(math.one, 1));\n`,
  );
  write('test/other.test.js', "const { test } = require('node:test');\ntest('stands alone', () => {});\n");
  write('.tickets/TINY-1.script.json', JSON.stringify({ coder: [ANSWER, ANSWER] }));
  return p;
}

describe('scenarios: the project tests that reach the change', function () {
  this.timeout(180_000);
  let p: { root: string; dispose: () => void } | undefined;
  afterEach(() => p?.dispose());

  it('a test that reaches the changed module runs before and after the change; one that does not, never; the broken one fails the run', async () => {
    p = project("const math = require('../src/math');");
    const { state, runId } = await runTicket(p.root, 'TINY-1', { attempts: 1, gates: { enabled: ['projectTests'] } });
    const baseline = (await loadEvents(p.root, runId)).find((e) => e.type === 'projectTests.baseline');
    assert.deepEqual(baseline?.type === 'projectTests.baseline' && baseline.files, ['test/one.test.js']);
    assert.deepEqual(state.attempts[0]?.projectTests?.files, ['test/one.test.js']);
    assert.deepEqual(state.attempts[0]?.projectTests?.newlyFailing, ['test/one.test.js › one is 1']);
    assert.equal(state.attempts[0]?.status, 'failed');
    // The script holds no Debugger answer: the run ends there, not passed.
    assert.notEqual(state.status, 'passed');
  });

  it('hostile: a test that loads the module by a computed name is not among those the attempt runs, and the gate runs the whole suite and fails the run', async () => {
    p = project("const name = 'math';\nconst math = require(`../src/${name}`);");
    const { state, runId } = await runTicket(p.root, 'TINY-1', { attempts: 1, gates: { enabled: ['projectTests'] } });
    const baseline = (await loadEvents(p.root, runId)).find((e) => e.type === 'projectTests.baseline');
    assert.deepEqual(baseline?.type === 'projectTests.baseline' && baseline.files, ['test/one.test.js', 'test/other.test.js']);
    assert.equal(state.attempts[0]?.status, 'passed', 'no test of the attempt reaches the change by its imports');
    const gate = state.gates.find((g) => g.gate === 'projectTests')!;
    assert.equal(gate.status, 'failed', gate.detail);
    assert.ok(gate.evidence?.kind === 'projectTests');
    assert.deepEqual(gate.evidence.newlyFailing, ['test/one.test.js › one is 1']);
    assert.deepEqual(gate.evidence.selection, {
      by: 'fallback',
      why: 'which tests reach the change could not be worked out (test/one.test.js loads modules by a computed name)',
    });
    assert.match(gate.detail, /^the whole suite \(2 test files\): which tests reach the change could not be worked out/);
    assert.notEqual(state.status, 'passed');
  });
});
