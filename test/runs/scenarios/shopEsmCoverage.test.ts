import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { GateSettings } from '../../../src/core/stages/common/gateConfig';
import type { RunState } from '../../../src/core/run/reducer';
import { callsOf, resolveRun, runTicket } from '../../support/scenario';
import { copyFixture } from '../../support/tempWorkspace';

/**
 * SHOP-7 on shop-esm: the coverage gate measured by vitest's own coverage (@vitest/coverage-v8,
 * the project's coverage tool), through the real CLI wiring with the OS sandbox as it comes.
 */

const GATES: GateSettings = { enabled: ['testReview', 'coverage'] };
const ran = (s: RunState) => s.gates.map((g) => `${g.gate}:${g.status}`).filter((g) => !g.endsWith(':skipped'));

describe("scenarios: shop-esm coverage from vitest's own tool", function () {
  this.timeout(180_000);
  let ws: ReturnType<typeof copyFixture>;
  beforeEach(() => {
    ws = copyFixture('shop-esm');
  });
  afterEach(() => ws.dispose());
  const read = (rel: string) => readFileSync(path.join(ws.root, rel), 'utf8');

  it("SHOP-7: the export branch no test reaches falls short of the threshold; the Test Reviewer's plan, accepted, reaches it and the gate passes", async () => {
    const first = await runTicket(ws.root, 'SHOP-7', { gates: GATES });
    assert.equal(first.state.status, 'needsOperator', JSON.stringify(first.state.finished));
    assert.deepEqual(ran(first.state), ['testReview:passed', 'coverage:failed']);
    const gate = first.state.gates.at(-1)!;
    assert.ok(gate.evidence?.kind === 'coverage');
    assert.deepEqual([gate.evidence.source, gate.evidence.changedLines, gate.evidence.coveredLines], ['vitest', 3, 2]);
    const branch = read('src/cart/tax.ts').split('\n').indexOf('    return money(0, gross.currency);') + 1;
    assert.deepEqual(gate.evidence.uncovered, [{ file: 'src/cart/tax.ts', lines: [branch] }]);
    assert.match(
      gate.detail ?? '',
      /2 of 3 changed executable lines ran \(66\.7%, threshold 80%, vitest's own coverage of the run that judged the tests\)/,
    );
    const req = first.state.corrections[0]!.request;
    assert.deepEqual(
      [req.fact.kind, req.fact.file, req.fact.line, req.proposal.kind],
      ['changedLinesUncovered', 'src/cart/tax.ts', branch, 'testPlan'],
    );

    const { state } = await resolveRun(ws.root, first, 'accept', undefined, { gates: GATES });
    assert.equal(state.status, 'passed', JSON.stringify(state.finished));
    assert.deepEqual(ran(state), ['testReview:passed', 'coverage:failed', 'testReview:passed', 'coverage:passed']);
    const after = state.gates.at(-1)!.evidence;
    assert.ok(after?.kind === 'coverage');
    assert.deepEqual([after.changedLines, after.coveredLines, after.uncovered], [3, 3, []]);
    // The accepted case is its criterion's last, so it is held out: it ran (and reached the branch) beside the visible file, never in it.
    assert.match(JSON.stringify(state.manifest?.heldOut.files), /vatFor\(money\(10700\), 'books', 'world'\)/);
    assert.doesNotMatch(read('test/ticket/SHOP-7.test.ts'), /vatFor\(money\(10700\), 'books', 'world'\)/);
    assert.deepEqual([callsOf(state, 'coder'), callsOf(state, 'testReviewer')], [1, 3]);
  });

  it('SHOP-7 in a project whose coverage.exclude leaves the changed file out: the gate counts its lines as not run, never skipped or passed', async () => {
    const config = path.join(ws.root, 'vitest.config.ts');
    writeFileSync(
      config,
      read('vitest.config.ts').replace("include: ['src/**/*.ts']", "include: ['src/**/*.ts'], exclude: ['src/cart/tax.ts']"),
    );
    const { state } = await runTicket(ws.root, 'SHOP-7', { gates: GATES });
    assert.equal(state.status, 'needsOperator', JSON.stringify(state.finished));
    assert.deepEqual(ran(state), ['testReview:passed', 'coverage:failed']);
    const gate = state.gates.at(-1)!;
    assert.ok(gate.evidence?.kind === 'coverage');
    assert.deepEqual([gate.evidence.absent, gate.evidence.coveredLines], [['src/cart/tax.ts'], 0]);
    assert.ok(gate.evidence.changedLines >= 3);
    assert.match(gate.detail ?? '', /left out of the vitest coverage report, so counted as not run: src\/cart\/tax\.ts/);
  });
});
