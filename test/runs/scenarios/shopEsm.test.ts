import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { DEFAULT_GATES, type GateSettings } from '../../../src/core/stages/common/gateConfig';
import { callsOf, freshCopyEachTest, gateRuns, gatesRan, runTicket } from '../../support/scenario';
import { fixturePath } from '../../support/tempWorkspace';

/**
 * The shop-esm fixture end to end: an ESM project ("type": "module", NodeNext) with its own
 * vitest suite, a typescript-eslint flat config with typed rules, a path alias and a tsc build.
 * Every check runs the real tool with the project's own config: vitest through its JSON
 * reporter, ESLint in the lint worker, the TypeScript language service, tsc for the gates.
 * SHOP-3 (the lint gate's repair) and SHOP-4 (the build gate's) run once, through the built
 * command, in test/runs/cli/shopEsmCli.test.ts.
 */

const GATES: GateSettings = { enabled: [...DEFAULT_GATES, 'build'], buildCommand: 'npm run build' };
const answer = (id: string, file: string) => readFileSync(path.join(fixturePath('shop-esm'), '.tickets', 'answers', id, file), 'utf8');

describe('scenarios: shop-esm (ESM, vitest, typescript-eslint, path alias, tsc build)', function () {
  this.timeout(180_000);
  const ws = freshCopyEachTest('shop-esm');
  const read = ws.read;

  it('SHOP-1: a plain change passes first time, with vitest detected from its config and every gate run by the real tools', async () => {
    const { state } = await runTicket(ws.root, 'SHOP-1', { gates: GATES });
    assert.equal(state.status, 'passed', JSON.stringify(state.finished));
    assert.deepEqual(state.manifest?.runner, { framework: 'vitest', detectedFrom: 'config file vitest.config.ts' });
    assert.equal(state.manifest?.moduleKind, 'esm');
    assert.deepEqual(gateRuns(state), [
      'typecheck:passed',
      'lint:passed',
      'build:passed',
      'projectTests:passed',
      'implementationReview:passed',
      'testReview:passed',
      'coverage:passed',
    ]);
    const tests = state.attempts[0]?.tests;
    assert.deepEqual(
      tests?.cases.map((c) => [c.file, c.name, c.status]),
      [
        ['test/ticket/SHOP-1.test.ts', 'SHOP-1 free EU shipping > [AC1] ships free to the EU from 100 euros', 'passed'],
        ['test/ticket/SHOP-1.test.ts', 'SHOP-1 free EU shipping > [AC2] charges the EU rate below 100 euros', 'passed'],
      ],
    );
    assert.deepEqual([callsOf(state, 'coder'), callsOf(state, 'debugger'), state.repairs.length], [1, 0, 0]);
    assert.equal(read('src/cart/shipping.ts'), answer('SHOP-1', 'attempt1.ts'));
  });

  it("SHOP-2: a code bug, diagnosed from vitest's JSON report with its file, name, message and source stack, fixed on attempt 2", async () => {
    const { state } = await runTicket(ws.root, 'SHOP-2', { gates: { enabled: ['projectTests', 'implementationReview', 'testReview'] } });
    assert.equal(state.status, 'passed', JSON.stringify(state.finished));
    assert.deepEqual([callsOf(state, 'coder'), callsOf(state, 'debugger')], [2, 1]);
    const [a1, a2] = state.attempts;
    const failed = a1?.tests?.cases.find((c) => c.status === 'failed');
    assert.deepEqual(
      [failed?.file, failed?.name],
      ['test/ticket/SHOP-2.test.ts', 'SHOP-2 cart item limit > [AC1] refuses items past 50 in total'],
    );
    assert.match(failed?.message ?? '', /^AssertionError: expected \{ ok: true/);
    // vite transforms the TypeScript itself: the frames already name the source lines.
    assert.match(failed?.stack ?? '', /test\/ticket\/SHOP-2\.test\.ts:\d+:\d+/);
    assert.deepEqual([a1?.diagnosis?.kind, a1?.route?.route], ['code', 'code']);
    assert.match(a2?.brief ?? '', /counts lines, not items/);
    assert.equal(a2?.tests?.status, 'passed');
    assert.deepEqual(gatesRan(state), ['projectTests:passed', 'implementationReview:passed', 'testReview:passed']);
    assert.equal(read('src/cart/cart.ts'), answer('SHOP-2', 'attempt2.ts'));
  });

  it("SHOP-5: a change that breaks the project's own vitest suite fails the attempt; the regression reaches the Debugger, and attempt 2 keeps the suite green", async () => {
    const { state } = await runTicket(ws.root, 'SHOP-5', { gates: { enabled: ['projectTests', 'implementationReview', 'testReview'] } });
    assert.equal(state.status, 'passed', JSON.stringify(state.finished));
    const [a1, a2] = state.attempts;
    // The ticket's own tests pass on attempt 1: only the project's suite, reached through the path alias, tells.
    assert.equal(a1?.tests?.status, 'passed');
    // invoice.test.ts reaches shipping.ts through order.ts's type import of Zone: reach follows type imports too.
    assert.deepEqual(a1?.projectTests?.files, ['test/cart.test.ts', 'test/checkout.test.ts', 'test/invoice.test.ts']);
    assert.deepEqual(a1?.projectTests?.newlyFailing, [
      'test/cart.test.ts › cart > quotes shipping by weight and zone, free at home from 50 euros',
    ]);
    assert.deepEqual([a1?.status, a1?.diagnosis?.kind, a1?.route?.route], ['failed', 'code', 'code']);
    assert.deepEqual([a2?.status, a2?.projectTests?.newlyFailing], ['passed', []]);
    assert.deepEqual([callsOf(state, 'coder'), callsOf(state, 'debugger')], [2, 1]);
    assert.deepEqual(gatesRan(state), ['projectTests:passed', 'implementationReview:passed', 'testReview:passed']);
  });
});
