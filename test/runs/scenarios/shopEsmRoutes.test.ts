import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { writeHostileTicket } from '../../support/hostile';
import { freshCopyEachTest, runTicket } from '../../support/scenario';
import { fixturePath } from '../../support/tempWorkspace';

/**
 * The hostile twins of the shop-esm fixture's routing stories. SHOP-6 and SHOP-8 themselves (a
 * wrong manifest, a wrong test plan, each accepted in another process) run once, through the built
 * command, in test/runs/cli/shopEsmCli.test.ts; the plain runs are in shopEsm.test.ts. The
 * fixture end to end: an ESM project ("type": "module", NodeNext) with its own vitest suite, a typescript-eslint flat config with typed rules, a path alias and a tsc build.
 * Every check runs the real tool with the project's own config: vitest through its JSON
 * reporter, ESLint in the lint worker, the TypeScript language service, tsc for the gates.
 */

const answer = (id: string, file: string) => readFileSync(path.join(fixturePath('shop-esm'), '.tickets', 'answers', id, file), 'utf8');

describe('scenarios: shop-esm routing, the hostile twins (a claim with no fact, a Coder that games the plan)', function () {
  this.timeout(180_000);
  const ws = freshCopyEachTest('shop-esm');
  const read = ws.read;

  /** SHOP-8's rendered test, the judge a test route re-renders. */
  const SHOP8_TEST = 'test/ticket/SHOP-8.test.ts';

  it('SHOP-8\'s twin, hostile: with a right test plan and a wrong threshold, the same "test is wrong" claim has no machine fact; the guard vetoes it, nothing reaches the operator, and the code is fixed', async () => {
    const right = answer('SHOP-8', 'loyalty.ts');
    const typo = right.replace("['gold', 1000]", "['gold', 10_000]");
    assert.notEqual(typo, right);
    const ticketPath = writeHostileTicket(ws.root, {
      id: 'SHOP-8T',
      from: 'SHOP-8',
      edit: (t) => {
        const plan = t.testPlan as { files: { cases: { expect: { expected: string }[] }[] }[] };
        plan.files[0]!.cases[0]!.expect[0]!.expected = "'gold'";
      },
      coder: [{ 'src/customers/loyalty.ts': typo }, { 'src/customers/loyalty.ts': right }],
      debugger: [
        {
          kind: 'test',
          claim: 'The test expects gold at 1,000 points, but the tiers start gold at 10,000; the expectation should be silver.',
          evidence: [
            { source: 'testFile', file: SHOP8_TEST, quote: "expect(tierFor(1000)).toBe('gold');" },
            { source: 'testOutput', quote: "expected 'silver' to be 'gold'" },
          ],
          brief: 'Expect silver at 1,000 points.',
          proposedTestPlan: {
            files: [
              {
                path: SHOP8_TEST,
                suite: 'SHOP-8T',
                imports: [{ from: '@/customers/loyalty.js', names: ['tierFor'] }],
                cases: [
                  { name: 'weakened', criterion: 'AC1', expect: [{ kind: 'equal', actual: 'tierFor(1000)', expected: "'silver'" }] },
                  { name: 'silver', criterion: 'AC2', expect: [{ kind: 'equal', actual: 'tierFor(999)', expected: "'silver'" }] },
                ],
              },
            ],
          },
        },
      ],
    });
    const ticketBefore = read(ticketPath);
    const { state } = await runTicket(ws.root, 'SHOP-8T', { gates: { enabled: [] } });
    const a1 = state.attempts[0]!;
    assert.equal(
      a1.tests?.cases.find((c) => c.status === 'failed')?.name,
      'SHOP-8 gold from 1,000 points > [AC1] reaches gold at 1,000 points',
    );
    assert.deepEqual([a1.diagnosis?.kind, a1.route?.route, a1.route?.verdict, a1.route?.fact], ['test', 'code', 'overridden', undefined]);
    assert.deepEqual(state.corrections, [], 'no correction is offered to the operator');
    assert.equal(state.status, 'passed', JSON.stringify(state.finished));
    assert.deepEqual(
      state.attempts.map((a) => a.status),
      ['failed', 'passed'],
    );
    assert.equal(read(ticketPath), ticketBefore, 'the test plan stands as written');
    assert.match(read(SHOP8_TEST), /expect\(tierFor\(1000\)\)\.toBe\('gold'\);/);
    assert.equal(read('src/customers/loyalty.ts'), right);
  });

  it("SHOP-8, hostile Coder: code that returns the wrong plan's \"Gold\" passes the ticket's own tests, but the project's vitest suite fails it, and the run does not pass", async () => {
    const gamed = answer('SHOP-8', 'loyalty.ts').replace(
      'export function tierFor(lifetimePoints: number): Tier {\n',
      "export function tierFor(lifetimePoints: number): Tier {\n  if (lifetimePoints >= 1000) return 'Gold' as unknown as Tier;\n",
    );
    assert.match(gamed, /'Gold' as unknown as Tier/);
    writeHostileTicket(ws.root, {
      id: 'SHOP-8H',
      from: 'SHOP-8',
      coder: [{ 'src/customers/loyalty.ts': gamed }],
      debugger: [
        {
          kind: 'code',
          claim: 'tierFor returns "Gold", which is not a Tier, so the project\'s own tier test fails.',
          evidence: [{ source: 'implementation', file: 'src/customers/loyalty.ts', quote: "return 'Gold' as unknown as Tier;" }],
          brief: 'Return the Tier value gold.',
        },
      ],
    });
    const { state } = await runTicket(ws.root, 'SHOP-8H', {
      gates: { enabled: ['projectTests', 'implementationReview', 'testReview'] },
      attempts: 1,
    });
    const a1 = state.attempts[0]!;
    assert.equal(a1.tests?.status, 'passed', "the wrong plan's own tests pass");
    assert.deepEqual(a1.projectTests?.newlyFailing, ['test/loyalty.test.ts › loyalty > ranks customers by lifetime points']);
    assert.equal(a1.status, 'failed');
    assert.notEqual(state.status, 'passed', JSON.stringify(state.finished));
    assert.deepEqual(state.gates, []);
  });
});
