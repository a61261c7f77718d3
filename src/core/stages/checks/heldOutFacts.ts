import type { TestRunResult } from '../../schema/checks';
import type { MachineFact } from '../../schema/correction';
import type { Manifest } from '../../schema/manifest';
import type { TestCase, TestFile } from '../../schema/testPlan';
import { heldOutPath } from '../manifest/heldOut';
import { caseName } from '../materializer/render';
import { casesNotPassed } from './plannedCases';

/**
 * The wrong-test guard for held-out cases. A held-out case that contradicts a visible one is
 * the author's error: no code passes both, so the attempts would spend the budget on it. The
 * Debugger never reads a held-out case, so it cannot claim one wrong; this fact decides alone,
 * and it rests only on the plan and the runner's report, never on the Coder's code.
 *
 * The fact is for the operator (the author): it names both cases and their expected values.
 * It is never part of the evidence the Coder or the Debugger read (`FailureEvidence`).
 */

const squeeze = (s: string): string => s.replace(/\s+/g, '');

const passedIn = (file: TestFile, c: TestCase, result: TestRunResult): boolean =>
  casesNotPassed({ files: [{ ...file, cases: [c] }] }, result).length === 0;

const equalities = (c: TestCase) => c.expect.flatMap((e) => (e.kind === 'equal' && !e.not ? [e] : []));

/**
 * A held-out case that failed where a visible case of the same file passed, both with the same
 * set-up, both asserting that the same expression equals (in the same mode) a value written
 * differently: the visible case's pass says what the expression is, so the held-out case
 * cannot pass. Undefined when no pair of the attempt's cases is such.
 */
export function heldOutContradiction(manifest: Manifest, visible: TestRunResult, heldOut: TestRunResult): MachineFact | undefined {
  for (const held of manifest.heldOut.files) {
    const source = manifest.testPlan.files.find((f) => heldOutPath(f.path) === held.path);
    if (!source) continue;
    for (const h of held.cases) {
      if (passedIn(held, h, heldOut)) continue;
      for (const v of source.cases) {
        if (squeeze(v.arrange.join('\n')) !== squeeze(h.arrange.join('\n')) || !passedIn(source, v, visible)) continue;
        for (const he of equalities(h)) {
          const ve = equalities(v).find(
            (x) => squeeze(x.actual) === squeeze(he.actual) && x.mode === he.mode && squeeze(x.expected) !== squeeze(he.expected),
          );
          if (!ve) continue;
          return {
            kind: 'heldOutContradictsVisible',
            detail: `the held-out case "${caseName(h)}" (${held.path}) expects ${he.actual} to equal ${he.expected}, but the visible case "${caseName(v)}" (${source.path}) expects it to equal ${ve.expected} and passed: no code passes both, so one of them is wrong in the test plan`,
            file: source.path,
          };
        }
      }
    }
  }
  return undefined;
}
