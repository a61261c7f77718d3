import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { CLI_DEFAULT_GATES, type GateSettings } from '../../../src/core/stages/gates/config';
import type { RunState } from '../../../src/core/run/reducer';
import { callsOf, runTicket } from '../../support/scenario';
import { copyFixture, fixturePath } from '../../support/tempWorkspace';

/**
 * The shop-esm fixture end to end: an ESM project ("type": "module", NodeNext) with its own
 * vitest suite, a typescript-eslint flat config with typed rules, a path alias and a tsc build.
 * Every check runs the real tool with the project's own config: vitest through its JSON
 * reporter, ESLint in the lint worker, the TypeScript language service, tsc for the gates.
 */

const GATES: GateSettings = { enabled: [...CLI_DEFAULT_GATES, 'build'], buildCommand: 'npm run build' };
const gateRuns = (s: RunState) => s.gates.map((g) => `${g.gate}:${g.status}${g.afterRepairOf ? `@${g.afterRepairOf}` : ''}`);
const answer = (id: string, file: string) => readFileSync(path.join(fixturePath('shop-esm'), '.tickets', 'answers', id, file), 'utf8');

describe('scenarios: shop-esm (ESM, vitest, typescript-eslint, path alias, tsc build)', function () {
  this.timeout(180_000);
  let ws: ReturnType<typeof copyFixture>;
  beforeEach(() => {
    ws = copyFixture('shop-esm');
  });
  afterEach(() => ws.dispose());
  const read = (rel: string) => readFileSync(path.join(ws.root, rel), 'utf8');

  it('SHOP-1: a plain change passes first time, with vitest detected from its config and every gate run by the real tools', async () => {
    const { state } = await runTicket(ws.root, 'SHOP-1', { gates: GATES });
    assert.equal(state.status, 'passed', JSON.stringify(state.finished));
    assert.deepEqual(state.manifest?.runner, { framework: 'vitest', detectedFrom: 'config file vitest.config.ts' });
    assert.equal(state.manifest?.moduleKind, 'esm');
    assert.deepEqual(gateRuns(state), ['typecheck:passed', 'lint:passed', 'build:passed', 'projectTests:passed', 'implementationReview:passed', 'testReview:passed', 'coverage:skipped']);
    const tests = state.attempts[0]?.tests;
    assert.deepEqual(tests?.cases.map((c) => [c.file, c.name, c.status]), [
      ['test/ticket/SHOP-1.test.ts', 'SHOP-1 free EU shipping > [AC1] ships free to the EU from 100 euros', 'passed'],
      ['test/ticket/SHOP-1.test.ts', 'SHOP-1 free EU shipping > [AC2] charges the EU rate below 100 euros', 'passed'],
    ]);
    assert.deepEqual([callsOf(state, 'coder'), callsOf(state, 'debugger'), state.repairs.length], [1, 0, 0]);
    assert.equal(read('src/cart/shipping.ts'), answer('SHOP-1', 'attempt1.ts'));
  });
});
