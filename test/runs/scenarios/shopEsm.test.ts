import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { DEFAULT_GATES, type GateSettings } from '../../../src/core/stages/gates/config';
import { callsOf, freshCopyEachTest, gateRuns, gatesRan, runTicket } from '../../support/scenario';
import { fixturePath } from '../../support/tempWorkspace';

/**
 * The shop-esm fixture end to end: an ESM project ("type": "module", NodeNext) with its own
 * vitest suite, a typescript-eslint flat config with typed rules, a path alias and a tsc build.
 * Every check runs the real tool with the project's own config: vitest through its JSON
 * reporter, ESLint in the lint worker, the TypeScript language service, tsc for the gates.
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
    assert.deepEqual(gateRuns(state), ['typecheck:passed', 'lint:passed', 'build:passed', 'projectTests:passed', 'implementationReview:passed', 'testReview:passed', 'coverage:passed']);
    const tests = state.attempts[0]?.tests;
    assert.deepEqual(tests?.cases.map((c) => [c.file, c.name, c.status]), [
      ['test/ticket/SHOP-1.test.ts', 'SHOP-1 free EU shipping > [AC1] ships free to the EU from 100 euros', 'passed'],
      ['test/ticket/SHOP-1.test.ts', 'SHOP-1 free EU shipping > [AC2] charges the EU rate below 100 euros', 'passed'],
    ]);
    assert.deepEqual([callsOf(state, 'coder'), callsOf(state, 'debugger'), state.repairs.length], [1, 0, 0]);
    assert.equal(read('src/cart/shipping.ts'), answer('SHOP-1', 'attempt1.ts'));
  });

  it('SHOP-2: a code bug, diagnosed from vitest\'s JSON report with its file, name, message and source stack, fixed on attempt 2', async () => {
    const { state } = await runTicket(ws.root, 'SHOP-2', { gates: { enabled: ['projectTests', 'implementationReview', 'testReview'] } });
    assert.equal(state.status, 'passed', JSON.stringify(state.finished));
    assert.deepEqual([callsOf(state, 'coder'), callsOf(state, 'debugger')], [2, 1]);
    const [a1, a2] = state.attempts;
    const failed = a1?.tests?.cases.find((c) => c.status === 'failed');
    assert.deepEqual([failed?.file, failed?.name], ['test/ticket/SHOP-2.test.ts', 'SHOP-2 cart item limit > [AC1] refuses items past 50 in total']);
    assert.match(failed?.message ?? '', /^AssertionError: expected \{ ok: true/);
    // vite transforms the TypeScript itself: the frames already name the source lines.
    assert.match(failed?.stack ?? '', /test\/ticket\/SHOP-2\.test\.ts:\d+:\d+/);
    assert.deepEqual([a1?.diagnosis?.kind, a1?.route?.route], ['code', 'code']);
    assert.match(a2?.brief ?? '', /counts lines, not items/);
    assert.equal(a2?.tests?.status, 'passed');
    assert.deepEqual(gatesRan(state), ['projectTests:passed', 'implementationReview:passed', 'testReview:passed']);
    assert.equal(read('src/cart/cart.ts'), answer('SHOP-2', 'attempt2.ts'));
  });

  it('SHOP-3: a floating promise left in a file the last attempt did not rewrite fails the lint gate (the project\'s typed config); one repair, then the gate passes', async () => {
    const { state } = await runTicket(ws.root, 'SHOP-3', { gates: { enabled: ['lint', 'projectTests', 'implementationReview', 'testReview'] } });
    assert.equal(state.status, 'passed', JSON.stringify(state.finished));
    // Attempt 1's own lint check saw it; attempt 2 rewrote only the notifier, so only the gate, over the whole change, sees it again.
    assert.deepEqual(state.attempts[0]?.lint?.problems.map((p) => [p.file, p.rule]), [['src/orders/checkout.ts', '@typescript-eslint/no-floating-promises']]);
    assert.deepEqual(state.attempts[1]?.lint?.problems, []);
    assert.deepEqual(gatesRan(state), ['lint:failed', 'lint:passed@lint', 'projectTests:passed', 'implementationReview:passed', 'testReview:passed']);
    const lint = state.gates.find((g) => g.gate === 'lint')!.evidence;
    assert.ok(lint?.kind === 'lint');
    assert.deepEqual(lint.files, ['src/orders/checkout.ts', 'src/orders/notifier.ts']);
    assert.deepEqual(lint.problems.map((p) => `${p.file}:${p.line} ${p.rule ?? ''}`), ['src/orders/checkout.ts:63 @typescript-eslint/no-floating-promises']);
    const [repair] = state.repairs;
    assert.deepEqual([repair?.gate, repair?.ok, repair?.stage, repair?.reverted], ['lint', true, 'done', false]);
    assert.deepEqual(repair?.regression?.failed, []);
    assert.deepEqual([callsOf(state, 'coder'), callsOf(state, 'debugger')], [3, 1]);
    assert.equal(read('src/orders/checkout.ts'), answer('SHOP-3', 'repair.ts'));
  });

  it('SHOP-4: the build (tsc with isolatedDeclarations) fails where the editor\'s checks pass; the build gate\'s repair declares the type, and the build passes on its re-run', async () => {
    const { state } = await runTicket(ws.root, 'SHOP-4', { gates: { enabled: ['typecheck', 'build'], buildCommand: 'npm run build' } });
    assert.equal(state.status, 'passed', JSON.stringify(state.finished));
    assert.equal(state.attempts[0]?.diagnostics?.ok, true);
    assert.deepEqual(gatesRan(state), ['typecheck:passed', 'build:failed', 'build:passed@build', 'typecheck:passed@build']);
    const build = state.gates.find((g) => g.gate === 'build')!.evidence;
    assert.ok(build?.kind === 'build' && build.exitCode === 1);
    assert.match(build.output, /src\/cart\/summary\.ts\(6,19\): error TS9013/);
    const [repair] = state.repairs;
    assert.deepEqual([repair?.gate, repair?.ok, repair?.stage, repair?.reverted], ['build', true, 'done', false]);
    assert.equal(read('src/cart/summary.ts'), answer('SHOP-4', 'repair.ts'));
  });

  it('SHOP-5: a change that breaks the project\'s own vitest suite fails the attempt; the regression reaches the Debugger, and attempt 2 keeps the suite green', async () => {
    const { state } = await runTicket(ws.root, 'SHOP-5', { gates: { enabled: ['projectTests', 'implementationReview', 'testReview'] } });
    assert.equal(state.status, 'passed', JSON.stringify(state.finished));
    const [a1, a2] = state.attempts;
    // The ticket's own tests pass on attempt 1: only the project's suite, reached through the path alias, tells.
    assert.equal(a1?.tests?.status, 'passed');
    // invoice.test.ts reaches shipping.ts through order.ts's type import of Zone: reach follows type imports too.
    assert.deepEqual(a1?.projectTests?.files, ['test/cart.test.ts', 'test/checkout.test.ts', 'test/invoice.test.ts']);
    assert.deepEqual(a1?.projectTests?.newlyFailing, ['test/cart.test.ts › cart > quotes shipping by weight and zone, free at home from 50 euros']);
    assert.deepEqual([a1?.status, a1?.diagnosis?.kind, a1?.route?.route], ['failed', 'code', 'code']);
    assert.deepEqual([a2?.status, a2?.projectTests?.newlyFailing], ['passed', []]);
    assert.deepEqual([callsOf(state, 'coder'), callsOf(state, 'debugger')], [2, 1]);
    assert.deepEqual(gatesRan(state), ['projectTests:passed', 'implementationReview:passed', 'testReview:passed']);
  });
});
