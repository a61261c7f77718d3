import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { DEFAULT_GATES } from '../../../src/core/stages/gates/config';
import type { RunState } from '../../../src/core/run/reducer';
import { callsOf, resolveRun, runTicket } from '../../support/scenario';
import { copyFixture, fixturePath } from '../../support/tempWorkspace';

/**
 * The inventory-jest fixture end to end: a CommonJS project tested with jest and ts-jest, with
 * coverage thresholds of its own. Every check runs the real tool: jest through its --json
 * report, the TypeScript language service, tsc for the type-check gate, jest's own coverage
 * for the coverage gate.
 */

const gateRuns = (s: RunState) => s.gates.map((g) => `${g.gate}:${g.status}${g.afterRepairOf ? `@${g.afterRepairOf}` : ''}`);
const answer = (id: string, file: string) => readFileSync(path.join(fixturePath('inventory-jest'), '.tickets', 'answers', id, file), 'utf8');

describe('scenarios: inventory-jest (CommonJS, jest with ts-jest, jest\'s own coverage)', function () {
  this.timeout(180_000);
  let ws: ReturnType<typeof copyFixture>;
  beforeEach(() => {
    ws = copyFixture('inventory-jest');
  });
  afterEach(() => ws.dispose());
  const read = (rel: string) => readFileSync(path.join(ws.root, rel), 'utf8');

  it('INV-1: a plain change passes first time, with jest detected from its config and every default gate run, coverage by jest', async () => {
    const { state } = await runTicket(ws.root, 'INV-1', { gates: { enabled: DEFAULT_GATES } });
    assert.equal(state.status, 'passed', JSON.stringify(state.finished));
    assert.deepEqual(state.manifest?.runner, { framework: 'jest', detectedFrom: 'config file jest.config.js' });
    assert.equal(state.manifest?.moduleKind, 'cjs');
    assert.deepEqual(gateRuns(state), ['typecheck:passed', 'lint:skipped', 'build:skipped', 'projectTests:passed', 'implementationReview:passed', 'testReview:passed', 'coverage:passed']);
    const coverage = state.gates.at(-1)!.evidence;
    assert.ok(coverage?.kind === 'coverage');
    assert.deepEqual([coverage.source, coverage.changedLines, coverage.coveredLines, coverage.uncovered], ['jest', 1, 1, []]);
    assert.deepEqual(state.attempts[0]?.tests?.cases.map((c) => [c.file, c.name, c.status]), [
      ['test/ticket/INV-1.test.ts', 'INV-1 low stock > [AC1] lists the SKUs at or below the threshold, sorted', 'passed'],
      ['test/ticket/INV-1.test.ts', 'INV-1 low stock > [AC2] leaves out the SKUs above it', 'passed'],
    ]);
    assert.deepEqual([callsOf(state, 'coder'), callsOf(state, 'debugger'), state.repairs.length], [1, 0, 0]);
    assert.equal(read('src/stock.ts'), answer('INV-1', 'attempt1.ts'));
  });
});
