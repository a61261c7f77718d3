import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { RunState } from '../../../src/core/run/reducer';
import { cli } from '../../support/cli';
import { callsOf, resolveRun, runTicket } from '../../support/scenario';
import { copyFixture, fixturePath } from '../../support/tempWorkspace';

/**
 * The inventory-jest fixture end to end: a CommonJS project tested with jest and ts-jest, with
 * coverage thresholds of its own. Every check runs the real tool: jest through its --json
 * report, the TypeScript language service, tsc for the type-check gate, jest's own coverage
 * for the coverage gate.
 */

const gateRuns = (s: RunState) => s.gates.map((g) => `${g.gate}:${g.status}${g.afterRepairOf ? `@${g.afterRepairOf}` : ''}`);
const answer = (id: string, file: string) =>
  readFileSync(path.join(fixturePath('inventory-jest'), '.tickets', 'answers', id, file), 'utf8');

describe("scenarios: inventory-jest (CommonJS, jest with ts-jest, jest's own coverage)", function () {
  this.timeout(180_000);
  let ws: ReturnType<typeof copyFixture>;
  beforeEach(() => {
    ws = copyFixture('inventory-jest');
  });
  afterEach(() => ws.dispose());
  const read = (rel: string) => readFileSync(path.join(ws.root, rel), 'utf8');

  it('INV-1 through the CLI: a plain change passes first time, with jest detected from its config and every default gate run, coverage by jest', async () => {
    const { code, out, err } = await cli(['run', '.tickets/INV-1.ticket.json', '--workspace', ws.root, '--model', 'scripted', '--json']);
    assert.equal(code, 0, err);
    const { state } = JSON.parse(out) as { state: RunState };
    assert.equal(state.status, 'passed', JSON.stringify(state.finished));
    assert.deepEqual(state.manifest?.runner, { framework: 'jest', detectedFrom: 'config file jest.config.js' });
    assert.equal(state.manifest?.moduleKind, 'cjs');
    assert.deepEqual(gateRuns(state), [
      'typecheck:passed',
      'lint:skipped',
      'build:skipped',
      'projectTests:passed',
      'implementationReview:passed',
      'testReview:passed',
      'coverage:passed',
    ]);
    const coverage = state.gates.at(-1)!.evidence;
    assert.ok(coverage?.kind === 'coverage');
    assert.deepEqual([coverage.source, coverage.changedLines, coverage.coveredLines, coverage.uncovered], ['jest', 1, 1, []]);
    assert.deepEqual(
      state.attempts[0]?.tests?.cases.map((c) => [c.file, c.name, c.status]),
      [
        ['test/ticket/INV-1.test.ts', 'INV-1 low stock > [AC1] lists the SKUs at or below the threshold, sorted', 'passed'],
        ['test/ticket/INV-1.test.ts', 'INV-1 low stock > [AC2] leaves out the SKUs above it', 'passed'],
      ],
    );
    assert.deepEqual([callsOf(state, 'coder'), callsOf(state, 'debugger'), state.repairs.length], [1, 0, 0]);
    assert.equal(read('src/stock.ts'), answer('INV-1', 'attempt1.ts'));
  });

  it("INV-2: a code bug, diagnosed from jest's JSON report with its file, name, message and a stack ts-jest maps to the TypeScript line that throws; fixed on attempt 2", async () => {
    const { state } = await runTicket(ws.root, 'INV-2', { gates: { enabled: ['projectTests'] } });
    assert.equal(state.status, 'passed', JSON.stringify(state.finished));
    assert.deepEqual([callsOf(state, 'coder'), callsOf(state, 'debugger')], [2, 1]);
    const [a1, a2] = state.attempts;
    const failed = a1?.tests?.cases.filter((c) => c.status === 'failed');
    assert.deepEqual(
      failed?.map((c) => [c.file, c.name]),
      [['test/ticket/INV-2.test.ts', 'INV-2 take stock > [AC2] takes exactly what is on hand']],
    );
    assert.match(failed?.[0]?.message ?? '', /^Error: not enough BOLT-00012: 3 on hand, 3 asked/);
    const throwing =
      answer('INV-2', 'attempt1.ts')
        .split('\n')
        .findIndex((l) => l.includes('if (quantity >= onHand) throw')) + 1;
    assert.match(failed?.[0]?.stack ?? '', new RegExp(`src/stock\\.ts:${throwing}:\\d+`), 'the frame names the TypeScript line');
    assert.match(failed?.[0]?.stack ?? '', /test\/ticket\/INV-2\.test\.ts:\d+:\d+/);
    assert.deepEqual([a1?.diagnosis?.kind, a1?.route?.route], ['code', 'code']);
    assert.match(a2?.brief ?? '', /refuses exactly what is on hand/);
    assert.equal(a2?.tests?.status, 'passed');
    assert.deepEqual(
      gateRuns(state).filter((g) => !g.endsWith(':skipped')),
      ['projectTests:passed'],
    );
    assert.equal(read('src/stock.ts'), answer('INV-2', 'attempt2.ts'));
  });

  it("INV-3: jest's own coverage shows the 15% branch never runs, despite the project's own thresholds; rejected, the run ends failed at the coverage gate", async () => {
    const gates = { enabled: ['testReview', 'coverage'] } as const;
    const first = await runTicket(ws.root, 'INV-3', { gates: { enabled: [...gates.enabled] } });
    assert.equal(first.state.status, 'needsOperator', JSON.stringify(first.state.finished));
    assert.deepEqual(
      gateRuns(first.state).filter((g) => !g.endsWith(':skipped')),
      ['testReview:passed', 'coverage:failed'],
    );
    const gate = first.state.gates.at(-1)!;
    assert.ok(gate.evidence?.kind === 'coverage');
    const branch =
      read('src/pricing.ts')
        .split('\n')
        .findIndex((l) => l.includes('* 15) / 100);')) + 1;
    assert.equal(gate.evidence.source, 'jest');
    assert.deepEqual(gate.evidence.uncovered, [{ file: 'src/pricing.ts', lines: [branch, branch + 1] }]);
    assert.deepEqual([gate.evidence.changedLines, gate.evidence.coveredLines], [9, 7]);
    const req = first.state.corrections[0]!.request;
    assert.deepEqual([req.fact.kind, req.fact.line, req.proposal.kind], ['changedLinesUncovered', branch, 'testPlan']);

    const { state } = await resolveRun(ws.root, first, 'reject', 'no 500-unit orders this quarter', {
      gates: { enabled: [...gates.enabled] },
    });
    assert.equal(state.status, 'failed');
    assert.equal(state.corrections[0]?.status, 'rejected');
    assert.equal(callsOf(state, 'coder'), 1);
  });
});
