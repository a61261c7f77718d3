import assert from 'node:assert/strict';
import type { TestCaseResult, TestRunResult } from '../../../src/core/schema/checks';
import { Manifest } from '../../../src/core/schema/manifest';
import type { Diagnosis } from '../../../src/core/schema/diagnosis';
import { heldOutContradiction } from '../../../src/core/stages/checks/heldOutFacts';
import { heldOutCases, splitHeldOut } from '../../../src/core/stages/manifest/heldOut';
import { applyProposal } from '../../../src/core/stages/proposals/correctionRequests';
import { route } from '../../../src/core/stages/router/router';
import { parseTicket } from '../../../src/core/ticket/ticketLoader';
import { aManifest } from '../../support/aManifest';

/**
 * The wrong-test guard for held-out cases: a held-out case that asserts another value than a
 * visible case that passed, for the same expression, is the author's error. The bad cases
 * first: nothing the plan does not say, and nothing the runner did not report, makes the fact.
 */

const SHOWN = 'test/ticket/T.test.ts';
const HELD = 'test/ticket/T.heldout.test.ts';

interface CaseSpec {
  name: string;
  expected: string;
  actual?: string;
  arrange?: string[];
  mode?: 'strict' | 'deep';
}

/** A ticket of one file: the visible case, then the held-out one (the last of AC1). */
function aTicket(shown: CaseSpec, held: CaseSpec) {
  const aCase = (c: CaseSpec) => ({
    name: c.name,
    criterion: 'AC1',
    arrange: c.arrange ?? [],
    expect: [{ kind: 'equal', mode: c.mode ?? 'strict', actual: c.actual ?? "shout('quiet words')", expected: c.expected }],
  });
  return parseTicket(
    'T.ticket.json',
    JSON.stringify({
      id: 'T',
      title: 't',
      description: 'd',
      scope: { write: ['src/shout.ts'] },
      acceptance: [{ id: 'AC1', text: 'shouts' }],
      testPlan: {
        files: [{ path: SHOWN, suite: 'T', imports: [{ from: '../../src/shout', names: ['shout'] }], cases: [aCase(shown), aCase(held)] }],
      },
    }),
  );
}

function manifestOf(shown: CaseSpec, held: CaseSpec): Manifest {
  const { visible, heldOut } = splitHeldOut(aTicket(shown, held));
  return aManifest({
    scope: { write: [{ path: 'src/shout.ts', exists: false }] },
    acceptance: [{ id: 'AC1', text: 'shouts' }],
    testPlan: visible,
    heldOut,
  });
}

const aRun = (file: string, name: string, status: TestCaseResult['status']): TestRunResult => ({
  status: status === 'passed' ? 'passed' : 'failed',
  framework: 'node:test',
  command: ['node', '--test'],
  passed: status === 'passed' ? 1 : 0,
  failed: status === 'failed' ? 1 : 0,
  skipped: 0,
  durationMs: 10,
  cases: [{ name: `T > [AC1] ${name}`, file, status }],
  output: '',
});

const shown: CaseSpec = { name: 'shouts a phrase', expected: "'QUIET WORDS'" };
const held: CaseSpec = { name: 'keeps the case of a phrase', expected: "'Quiet Words'" };
const fact = (m: Manifest, shownStatus: TestCaseResult['status'] = 'passed', heldStatus: TestCaseResult['status'] = 'failed') =>
  heldOutContradiction(
    m,
    aRun(SHOWN, m.testPlan.files[0]!.cases[0]!.name, shownStatus),
    aRun(HELD, m.heldOut.files[0]!.cases[0]!.name, heldStatus),
  );

describe('the wrong-test guard for held-out cases', () => {
  it('no fact when the held-out case passed, when the visible case did not pass, or when the two differ in set-up, expression or mode', () => {
    const m = manifestOf(shown, held);
    assert.equal(fact(m, 'passed', 'passed'), undefined);
    assert.equal(fact(m, 'failed', 'failed'), undefined);
    assert.equal(fact(manifestOf(shown, { ...held, arrange: ["const input = 'quiet words';"] })), undefined);
    assert.equal(fact(manifestOf(shown, { ...held, actual: "shout('loud words')" })), undefined);
    assert.equal(fact(manifestOf(shown, { ...held, mode: 'deep' })), undefined);
    // Written the same way (but for spaces), the two expect one value: a held-out failure is the code's.
    assert.equal(
      fact(manifestOf({ ...shown, expected: "[ 'a', 'b' ]", mode: 'deep' }, { ...held, expected: "['a','b']", mode: 'deep' })),
      undefined,
    );
  });

  it('a held-out case that expects another value than a visible case that passed is a fact naming both', () => {
    const f = fact(manifestOf(shown, held));
    assert.equal(f?.kind, 'heldOutContradictsVisible');
    assert.equal(f?.file, SHOWN);
    assert.match(
      f.detail,
      /held-out case "\[AC1\] keeps the case of a phrase" \(test\/ticket\/T\.heldout\.test\.ts\) expects shout\('quiet words'\) to equal 'Quiet Words'/,
    );
    assert.match(
      f.detail,
      /visible case "\[AC1\] shouts a phrase" \(test\/ticket\/T\.test\.ts\) expects it to equal 'QUIET WORDS' and passed/,
    );
  });

  it('the router sends it to the operator as a test-plan correction whatever the Debugger claimed, unless the code changed the oracle', () => {
    const m = manifestOf(shown, held);
    const f = fact(m)!;
    const code: Diagnosis = { kind: 'code', claim: 'too narrow', evidence: [], brief: 'make it general', avoid: [] };
    const base = { manifest: m, diagnostics: [], workspaceRoot: '/w', heldOutFact: f };
    const d = route({ ...base, diagnosis: code });
    assert.deepEqual([d.route, d.guard.verdict, d.guard.fact?.kind], ['test', 'overridden', 'heldOutContradictsVisible']);
    assert.equal(route({ ...base, diagnosis: null }).route, 'test');
    assert.equal(route({ ...base, diagnosis: { ...code, kind: 'test' } }).guard.verdict, 'confirmed');
    assert.equal(route({ ...base, diagnosis: code, tampered: [{ path: SHOWN, expected: 'a', actual: 'b' }] }).route, 'code');
    assert.equal(route({ ...base, heldOutFact: undefined, diagnosis: code }).route, 'code');
  });

  it('an accepted correction of the held-out case keeps it held out, whatever the proposal says of it', () => {
    const t = aTicket(shown, held);
    const { visible } = splitHeldOut(t);
    // The proposal corrects the held-out case, and would show it.
    const corrected = {
      ...t.testPlan.files[0]!.cases[1]!,
      holdout: false,
      expect: [{ kind: 'equal' as const, mode: 'strict' as const, not: false, actual: "shout('quiet words')", expected: "'QUIET WORDS'" }],
    };
    const proposal = {
      kind: 'testPlan' as const,
      testPlan: { ...visible, files: [{ ...visible.files[0]!, cases: [...visible.files[0]!.cases, corrected] }] },
    };
    const after = parseTicket('T.ticket.json', applyProposal(JSON.stringify(t), 'T.ticket.json', proposal));
    assert.deepEqual(
      after.testPlan.files[0]!.cases.map((c) => [c.name, c.holdout ?? null, c.expect[0]!.kind === 'equal' ? c.expect[0]!.expected : '']),
      [
        ['shouts a phrase', null, "'QUIET WORDS'"],
        ['keeps the case of a phrase', true, "'QUIET WORDS'"],
      ],
    );
    assert.deepEqual(
      heldOutCases(after).map((c) => c.name),
      ['[AC1] keeps the case of a phrase'],
    );
  });
});
