import { UserInputError } from '../../errors';
import type { HeldOut } from '../../schema/manifest';
import { authoredTests, type TestCase, type TestFile, type TestPlan } from '../../schema/testPlan';
import type { Ticket } from '../../schema/ticket';
import { caseName } from '../materializer/render';
import { normalizeRelPath } from '../../schema/paths';

/**
 * Generalize: cases the Coder never sees. A fix only as wide as the cases it was shown passes
 * them; a case it never saw catches that. The rule, the same wherever it is read:
 * - a ticket with `generalize: false` holds nothing out;
 * - a case with `holdout` says for itself;
 * - otherwise the last case (in plan order) of each criterion with two or more cases is held out.
 * At least one case stays visible: an attempt is judged by the held-out cases only once it
 * passes the visible ones.
 */

/** One held-out case, for `validate`, `render` and the verdict: where it is and what it checks. */
export interface HeldOutCase {
  /** Its JSON path in the ticket. */
  path: string;
  /** The held-out file it is rendered into. */
  file: string;
  /** Its name as rendered (the criterion first). */
  name: string;
  criterion?: string;
  /** Why it is held out: it said so, or it is its criterion's last. */
  why: 'holdout' | 'last of its criterion';
}

/**
 * The held-out file of a visible one: beside it, so that its imports resolve as the visible
 * file's do, and still named like a test (`x.test.ts` -> `x.heldout.test.ts`).
 */
export function heldOutPath(path: string): string {
  const slash = path.lastIndexOf('/');
  const dir = path.slice(0, slash + 1);
  const base = path.slice(slash + 1);
  const m = /^(.+?)((?:\.(?:test|spec))?\.[^.]+)$/.exec(base);
  return m ? `${dir}${m[1]}.heldout${m[2]}` : `${dir}${base}.heldout`;
}

/**
 * Why a case stays visible: the ticket turned generalize off, it says `"holdout": false`, it
 * names no criterion, it is its criterion's only case, or a later case of its criterion is the
 * last (held out, unless that one says `"holdout": false`).
 */
export type VisibleWhy = 'generalize off' | 'holdout false' | 'no criterion' | 'only case of its criterion' | 'not last of its criterion';

/** Where one case of the plan stands: held out (and why), or visible (and why). */
export type CaseStanding = { heldOut: true; why: HeldOutCase['why'] } | { heldOut: false; why: VisibleWhy };

/** Where each case of the plan stands, in plan order (files, then cases). */
function heldOutFlags(
  ticket: Pick<Ticket, 'generalize' | 'testPlan'>,
): { testCase: TestCase; fi: number; ci: number; standing: CaseStanding }[] {
  const all = ticket.testPlan.files.flatMap((f, fi) => f.cases.map((testCase, ci) => ({ testCase, fi, ci })));
  const visible = (why: VisibleWhy): CaseStanding => ({ heldOut: false, why });
  const held = (why: HeldOutCase['why']): CaseStanding => ({ heldOut: true, why });
  if (ticket.generalize === false) return all.map((c) => ({ ...c, standing: visible('generalize off') }));
  const count = new Map<string, number>();
  const last = new Map<string, number>();
  all.forEach(({ testCase }, i) => {
    if (testCase.criterion === undefined) return;
    count.set(testCase.criterion, (count.get(testCase.criterion) ?? 0) + 1);
    last.set(testCase.criterion, i);
  });
  const standing = ({ holdout, criterion }: TestCase, i: number): CaseStanding => {
    if (holdout !== undefined) return holdout ? held('holdout') : visible('holdout false');
    if (criterion === undefined) return visible('no criterion');
    if ((count.get(criterion) ?? 0) < 2) return visible('only case of its criterion');
    return last.get(criterion) === i ? held('last of its criterion') : visible('not last of its criterion');
  };
  return all.map((c, i) => ({ ...c, standing: standing(c.testCase, i) }));
}

/** Where the case at `testPlan.files[fi].cases[ci]` stands, or undefined when the plan has no such case. */
export function caseStanding(ticket: Pick<Ticket, 'generalize' | 'testPlan'>, fi: number, ci: number): CaseStanding | undefined {
  return heldOutFlags(ticket).find((c) => c.fi === fi && c.ci === ci)?.standing;
}

/** The held-out cases of a ticket, each with where it is and why (empty: nothing held out). */
export function heldOutCases(ticket: Pick<Ticket, 'generalize' | 'testPlan'>): HeldOutCase[] {
  return heldOutFlags(ticket).flatMap(({ testCase, fi, ci, standing }) =>
    standing.heldOut
      ? [
          {
            path: `$.testPlan.files[${fi}].cases[${ci}]`,
            file: heldOutPath(ticket.testPlan.files[fi]!.path),
            name: caseName(testCase),
            criterion: testCase.criterion,
            why: standing.why,
          },
        ]
      : [],
  );
}

/** Why a ticket's held-out rule cannot run (every case held out), or undefined. */
export function heldOutProblem(ticket: Pick<Ticket, 'generalize' | 'testPlan'>): string | undefined {
  if (heldOutFlags(ticket).some((c) => !c.standing.heldOut)) return undefined;
  const authored = authoredTests(ticket.testPlan);
  if (authored.some((a) => !a.heldOut || ticket.generalize === false)) return undefined;
  if (authored.length)
    return 'every test of the plan is held out: an attempt must pass a visible one first. Give an authored file "heldOut": false, or add a rendered case';
  return 'every case of the test plan is held out: an attempt must pass a visible case first. Give one case "holdout": false, or add a case';
}

/**
 * Splits a ticket's plan into the visible plan (a file whose cases are all held out is dropped)
 * and the held-out files. Throws when nothing would stay visible.
 */
export function splitHeldOut(ticket: Pick<Ticket, 'generalize' | 'testPlan'>): { visible: TestPlan; heldOut: HeldOut } {
  const problem = heldOutProblem(ticket);
  if (problem) throw new UserInputError(`${ticket.testPlan.files[0]?.path ?? 'testPlan'}: ${problem}`);
  const flags = heldOutFlags(ticket);
  const held = (fi: number, ci: number) => flags.some((f) => f.fi === fi && f.ci === ci && f.standing.heldOut);
  const part = (wantHeld: boolean, path: (p: string) => string): TestFile[] =>
    ticket.testPlan.files.flatMap((file, fi) => {
      const cases = file.cases.filter((_, ci) => held(fi, ci) === wantHeld);
      return cases.length ? [{ ...file, path: path(file.path), cases }] : [];
    });
  const generalize = ticket.generalize !== false;
  const authored = authoredTests(ticket.testPlan).map((a) => ({ path: normalizeRelPath(a.path), heldOut: a.heldOut && generalize }));
  const shown = authored.filter((a) => !a.heldOut).map((a) => a.path);
  const hidden = authored.filter((a) => a.heldOut).map((a) => a.path);
  const plan: TestPlan = { ...ticket.testPlan, files: part(false, (p) => p) };
  delete plan.authored;
  return {
    visible: shown.length ? { ...plan, authored: shown } : plan,
    heldOut: { generalize, files: part(true, heldOutPath), ...(hidden.length ? { authored: hidden } : {}) },
  };
}

/**
 * A corrected plan with the ticket's held-out cases kept: a proposal is made from the visible
 * plan, so accepting it as it is would delete the cases the Coder never saw. Each goes back
 * into its file (the file too, if the proposal dropped it), saying `"holdout": true`, so that it
 * stays held out wherever the corrected plan puts the other cases. One the proposal already
 * has (by its name, in its file: a correction of that case) is left as the proposal words it,
 * and held out all the same: a correction shows the case to the operator, never to the Coder.
 * A held-out authored file goes back into `authored` as the ticket has it.
 */
export function keepHeldOut(ticket: Pick<Ticket, 'generalize' | 'testPlan'>, proposed: TestPlan): TestPlan {
  const held = new Map(
    heldOutFlags(ticket)
      .filter((c) => c.standing.heldOut)
      .map((c) => [c.testCase, c.fi]),
  );
  const kept = new Set(authoredTests(proposed).map((a) => a.path));
  const hiddenFiles = authoredTests(ticket.testPlan).filter((a) => a.heldOut && !kept.has(a.path));
  if (hiddenFiles.length) proposed = { ...proposed, authored: [...(proposed.authored ?? []), ...hiddenFiles] };
  if (!held.size) return proposed;
  const files = proposed.files.map((f) => ({ ...f, cases: [...f.cases] }));
  for (const [testCase, fi] of held) {
    const source = ticket.testPlan.files[fi]!;
    let file = files.find((f) => f.path === source.path);
    if (!file) {
      file = { ...source, cases: [] };
      files.push(file);
    }
    const at = file.cases.findIndex((c) => c.name === testCase.name);
    if (at < 0) file.cases.push({ ...testCase, holdout: true });
    else file.cases[at] = { ...file.cases[at]!, holdout: true };
  }
  return { ...proposed, files };
}
