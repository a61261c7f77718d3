import type { Manifest } from '../../schema/manifest';
import type { TestPlan } from '../../schema/testPlan';
import type { ReviewBlocker } from '../../schema/gates';
import type { SourceFile } from '../common/evidence';
import { manifestSummary } from '../coder/prompt';

const fenced = (f: SourceFile): string => `--- ${f.path}\n${f.content}${f.content.endsWith('\n') ? '' : '\n'}--- end ${f.path}`;
const section = (title: string, body: string): string => `## ${title}\n${body}`;

export const REVIEWER_SYSTEM = [
  'You are the Implementation Reviewer of Ticket Runner. The tests of the ticket pass; you review the change itself.',
  'Read the ticket, its acceptance criteria and the cumulative diff. Fail the change only for a blocker:',
  'a defect that makes the change wrong for the ticket, unsafe, or breaks existing behaviour the ticket keeps.',
  'Style, naming and taste are not blockers. Each blocker names its file and quotes its evidence verbatim from the diff or the files shown;',
  'a blocker whose quote is not found is dropped. Answer through the review tool.',
].join('\n');

export const TEST_REVIEWER_SYSTEM = [
  'You are the Test Reviewer of Ticket Runner. The rendered tests are the oracle of the ticket, and no model edits them.',
  'Check that every acceptance criterion is checked by at least one test case that would fail if the criterion were not met.',
  'If one is not, fail, mark it covered: false with evidence quoted verbatim from the rendered tests (the case that names it but does',
  'not check it), and propose the whole corrected structured test plan (the same JSON shape as the current plan);',
  'the pipeline validates it, the operator decides, and the materializer renders it. Answer through the test review tool.',
].join('\n');

export interface ReviewInputs {
  manifest: Manifest;
  diff: string;
  files: SourceFile[];
  tests: SourceFile[];
}

export function reviewerPrompt(i: ReviewInputs): string {
  return [
    section('Ticket', manifestSummary(i.manifest)),
    section('Cumulative diff', i.diff || '(no change)'),
    section('Changed files, as they are now', i.files.map(fenced).join('\n') || '(none)'),
    section('Rendered tests (they pass)', i.tests.map(fenced).join('\n')),
  ].join('\n\n');
}

export function testReviewerPrompt(i: ReviewInputs & { plan: TestPlan; untagged: string[] }): string {
  return [
    section('Ticket', manifestSummary(i.manifest)),
    section('Current test plan', JSON.stringify(i.plan, null, 2)),
    section('Rendered tests', i.tests.map(fenced).join('\n')),
    i.untagged.length ? section('No test case names these criteria', i.untagged.join(', ')) : '',
    section('Cumulative diff', i.diff || '(no change)'),
  ]
    .filter(Boolean)
    .join('\n\n');
}

/** The coverage gate asks the Test Reviewer for cases that run the changed lines no test runs. */
export function coveragePlanPrompt(
  i: ReviewInputs & { plan: TestPlan; uncovered: { file: string; lines: { line: number; text: string }[] }[] },
): string {
  return [
    section('Ticket', manifestSummary(i.manifest)),
    section(
      'Changed lines no test runs',
      i.uncovered.map((u) => `${u.file}\n${u.lines.map((l) => `  ${l.line}: ${l.text}`).join('\n')}`).join('\n'),
    ),
    section('Current test plan', JSON.stringify(i.plan, null, 2)),
    section('Changed files, as they are now', i.files.map(fenced).join('\n')),
    'Propose the whole corrected test plan, adding the cases that run these lines and check what they do; fail the review to propose it.',
  ].join('\n\n');
}

export interface RepairInputs {
  manifest: Manifest;
  gate: string;
  files: SourceFile[];
  tests: SourceFile[];
  /** Files with complaints that the Coder may not change: shown so the fix can fit them. */
  readOnly: SourceFile[];
  complaints: string[];
  blockers: ReviewBlocker[];
}

/** A code-only repair: the gate's complaints are the constraints, and nothing else may change. */
export function repairPrompt(i: RepairInputs): string {
  const may = i.manifest.scope.write.map((f) => f.path).join(', ');
  return [
    manifestSummary(i.manifest),
    section(
      `End-of-ticket gate "${i.gate}" failed`,
      [
        'The tests of the ticket pass. Fix exactly these complaints, and change nothing else:',
        ...i.complaints.map((c) => `- ${c}`),
        ...i.blockers.map((b) => `- ${b.file ? `${b.file}: ` : ''}${b.claim}${b.evidence ? ` (evidence: ${b.evidence})` : ''}`),
      ].join('\n'),
    ),
    section(
      'Constraints',
      [
        `- You may write only: ${may}.`,
        i.readOnly.length
          ? `- These files have complaints but are read-only to you; make the code you may write fit them: ${i.readOnly.map((f) => f.path).join(', ')}.`
          : '',
        '- Every test that passes now must still pass.',
        '- Answer with the whole content of each file you change; no explanation.',
      ]
        .filter(Boolean)
        .join('\n'),
    ),
    section('Files you may write', i.files.map(fenced).join('\n')),
    i.readOnly.length ? section('Read-only files with complaints', i.readOnly.map(fenced).join('\n')) : '',
    section('Test files (read-only)', i.tests.map(fenced).join('\n')),
  ]
    .filter(Boolean)
    .join('\n\n');
}
