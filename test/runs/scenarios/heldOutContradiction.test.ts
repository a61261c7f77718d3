import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { copyFixture } from '../../support/tempWorkspace';
import { coderTextByAttempt, light, loadEvents, runTicket, writeScript } from '../../support/rungRuns';

/**
 * The wrong-test guard for held-out cases: a ticket whose held-out case expects another value
 * than its visible case, for the same call. No code passes both, so the run goes to the
 * operator as a test-plan correction that names the held-out case, and the attempts do not
 * spend the budget on it; the Coder never reads the held-out case, the fact included.
 */

const FILE = 'src/utils/shout.ts';
const TICKET = 'SHOUT-1';
const HELD_OUT_FILE = 'test/ticket/SHOUT-1.heldout.test.ts';
/** The held-out case's own text: its expected value and its name. */
const HELD_OUT = ['Quiet Words', 'keeps the first letter of each word'];

const ticket = {
  id: TICKET,
  title: 'Shout a phrase',
  description: `Add shout(text) to ${FILE}: the text in capital letters, for the banner.`,
  scope: { write: [FILE] },
  acceptance: [{ id: 'AC1', text: 'shout gives its text in capital letters' }],
  testPlan: {
    files: [
      {
        path: 'test/ticket/SHOUT-1.test.ts',
        suite: 'SHOUT-1 shout',
        imports: [{ from: '../../src/utils/shout', names: ['shout'] }],
        cases: [
          {
            name: 'shouts a phrase',
            criterion: 'AC1',
            expect: [{ kind: 'equal', actual: "shout('quiet words')", expected: "'QUIET WORDS'" }],
          },
          // The author's slip: the same call, another value. The last of AC1, so held out.
          {
            name: 'keeps the first letter of each word',
            criterion: 'AC1',
            expect: [{ kind: 'equal', actual: "shout('quiet words')", expected: "'Quiet Words'" }],
          },
        ],
      },
    ],
  },
};

const codeClaim = (quote: string) => ({
  kind: 'code',
  claim: 'shout does not give capital letters for every input.',
  evidence: [{ source: 'testOutput', quote }],
  brief: 'Give the whole text in capital letters.',
  avoid: [],
});

describe('scenarios: a held-out case that contradicts its visible case goes to the operator', function () {
  this.timeout(120_000);

  it('attempt 1 fails its visible case, attempt 2 passes it and fails the held-out case: a test-plan correction naming the held-out case, never a third attempt, and no held-out text to the Coder', async () => {
    const ws = copyFixture();
    try {
      writeFileSync(path.join(ws.root, '.tickets', `${TICKET}.ticket.json`), JSON.stringify(ticket, null, 2));
      writeScript(ws.root, TICKET, {
        coder: [
          {
            expect: { attempt: 1, promptIncludes: [] },
            files: { [FILE]: 'export function shout(text: string): string {\n  return text;\n}\n' },
          },
          {
            expect: { attempt: 2, promptIncludes: [] },
            files: { [FILE]: 'export function shout(text: string): string {\n  return text.toUpperCase();\n}\n' },
          },
          {
            expect: { attempt: 3, promptIncludes: [] },
            files: { [FILE]: 'export function shout(text: string): string {\n  return text.toUpperCase();\n}\n' },
          },
        ],
        debugger: [
          { expect: { attempt: 1, promptIncludes: [] }, structured: codeClaim('[AC1] shouts a phrase') },
          // The Debugger never reads the held-out case: it can only call the failure too narrow.
          { expect: { attempt: 2, promptIncludes: [] }, structured: codeClaim('The change passes the visible tests but is too narrow') },
        ],
      });
      const r = await runTicket(ws.root, TICKET, light);
      const events = await loadEvents(ws.root, r.runId);
      const s = r.state;
      assert.equal(s.status, 'needsOperator', JSON.stringify(s.finished));
      assert.deepEqual(
        s.attempts.map((a) => [a.n, a.tests?.status, a.heldOut?.status, a.route?.route, a.route?.fact?.kind ?? null]),
        [
          [1, 'failed', undefined, 'code', null],
          [2, 'passed', 'failed', 'test', 'heldOutContradictsVisible'],
        ],
      );
      assert.equal(s.attempts[1]!.route?.verdict, 'overridden');
      assert.deepEqual(s.finished?.reason, { kind: 'correctionRequested', requestId: `${r.runId}-c1`, route: 'test' });
      // The operator, the plan's author, reads both cases.
      const request = s.corrections[0]!.request;
      assert.equal(request.target, 'testPlan');
      assert.equal(request.fact.kind, 'heldOutContradictsVisible');
      assert.match(
        request.fact.detail,
        /held-out case "\[AC1\] keeps the first letter of each word" \(test\/ticket\/SHOUT-1\.heldout\.test\.ts\) expects shout\('quiet words'\) to equal 'Quiet Words'/,
      );
      assert.match(request.fact.detail, /visible case "\[AC1\] shouts a phrase" .* 'QUIET WORDS' and passed/);
      assert.equal(request.proposal.kind, 'none');
      assert.match(request.proposal.kind === 'none' ? request.proposal.why : '', /a held-out case stays held out/);
      // The Coder read neither the case nor the fact.
      const told = [...(await coderTextByAttempt(ws.root, r.runId, events)).values()].join('\n');
      assert.match(told, /\[AC1\] shouts a phrase/, 'attempt 2 read its visible failure');
      assert.deepEqual(
        HELD_OUT.filter((h) => told.includes(h)),
        [],
      );
      assert.ok(!existsSync(path.join(ws.root, HELD_OUT_FILE)));
    } finally {
      ws.dispose();
    }
  });
});
