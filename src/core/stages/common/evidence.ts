import { describeTampering, type TamperedFile } from './oraclePins';
import type { AppliedFix, TestRunResult, CodeDiagnostic, ParseProblem, LintProblem } from '../../schema/checks';

export interface SourceFile {
  path: string;
  content: string;
}

/** The evidence of a failed attempt, as the Coder and the Debugger both read it. */
export interface FailureEvidence {
  parse: ParseProblem[];
  diagnostics: CodeDiagnostic[];
  lint: LintProblem[];
  tests?: TestRunResult;
  /** Structural fixes the language service offered that would change files outside the scope. */
  refusedFixes?: AppliedFix[];
  /** Equality expectations whose expected value the subject's declared type cannot hold (the type probe). */
  impossibleExpectations?: { file: string; caseName: string; actual: string; expected: string; code: string; message: string }[];
  /**
   * The rendered tests' type errors against the code before the Coder wrote it (undefined: no
   * probe could run). The wrong-test guard confirms a test's type error only when it is here too.
   */
  testErrorsBeforeCoder?: CodeDiagnostic[];
  /** Errors the baseline had before the run: shown apart, never counted, never a route's evidence. */
  preExisting?: CodeDiagnostic[];
  /** Rendered tests or the ticket the code changed during the attempt (restored since): a code fault. */
  tampered?: TamperedFile[];
  /** The project's own tests that passed before the run and fail now. */
  regressions?: { test: string; message: string }[];
  /**
   * The visible cases passed and held-out cases failed: the fix is too narrow. Only the
   * criteria they check (id and text), never a case's inputs or expected values.
   */
  tooNarrow?: { criterion?: string; text?: string }[];
}

/** What the Coder and the Debugger read of a held-out failure: which criteria, and that the fix is too narrow. */
export function describeTooNarrow(criteria: NonNullable<FailureEvidence['tooNarrow']>): string[] {
  const named = criteria.filter((c) => c.criterion !== undefined);
  return [
    'The change passes the visible tests but is too narrow: held-out test cases, which you are not shown, fail.',
    ...named.map((c) => `- ${c.criterion}: ${c.text ?? ''}`),
    'Make the fix general: it must hold for every input the acceptance criteria cover, not only for the cases you were shown.',
  ];
}

/** The checks' findings of a failed attempt: the oracle, parse, type-check, lint. */
export function describeChecks(f: FailureEvidence): string {
  return describeFailure({ ...f, tests: undefined });
}

export function describeFailure(f: FailureEvidence): string {
  const out: string[] = describeTampering(f.tampered ?? []);
  for (const p of f.parse) out.push(`${p.file}:${p.line}:${p.column} syntax ${p.kind}: ${p.text}`);
  for (const d of f.diagnostics) out.push(`${d.file}:${d.line}:${d.column} ${d.code}: ${d.message}`);
  for (const x of f.impossibleExpectations ?? [])
    out.push(
      `${x.file} "${x.caseName}": expects ${x.actual} to equal ${x.expected}, which its declared type cannot hold (${x.code}: ${x.message})`,
    );
  for (const r of f.refusedFixes ?? [])
    out.push(`${r.file} ${r.code}: the fix "${r.description}" would change ${r.files.join(', ')}, outside the scope`);
  for (const l of f.lint) out.push(`${l.file}:${l.line}:${l.column} lint ${l.rule ?? ''}: ${l.message}`);
  if (f.tooNarrow) out.push(...describeTooNarrow(f.tooNarrow));
  for (const r of f.regressions ?? [])
    out.push(`existing project test now fails (it passed before the run): ${r.test}${r.message ? `\n${r.message}` : ''}`);
  if (f.tests && f.tests.status !== 'passed') {
    out.push(`tests ${f.tests.status}: ${f.tests.passed} passed, ${f.tests.failed} failed`);
    for (const c of f.tests.cases.filter((x) => x.status === 'failed')) {
      out.push(`FAIL ${c.name}${c.file ? ` (${c.file})` : ''}`);
      if (c.message) out.push(c.message);
      if (c.expected !== undefined) out.push(`Expected: ${c.expected}`);
      if (c.actual !== undefined) out.push(`Received: ${c.actual}`);
    }
    if (f.tests.cases.length === 0 && f.tests.output) out.push(f.tests.output);
  }
  return out.join('\n');
}

export const fence = (f: SourceFile): string => `--- ${f.path}\n${f.content}${f.content.endsWith('\n') ? '' : '\n'}--- end ${f.path}`;

/** What the Debugger reads of a failed attempt; the routing corpus freezes it as it is (schema/routingCase.ts). */
export interface DebuggerInputs {
  manifest: string;
  testFiles: SourceFile[];
  /** The whole failure: the checks' findings and the test run, with the runner's output. */
  testOutput: string;
  /** The checks' findings alone (parse, type-check, lint): the `diagnostics` evidence source. */
  diagnostics: string;
  /** Errors that were there before the run: shown apart so they are not mistaken for the attempt's. */
  preExisting: string;
  /**
   * The files in scope as they were before the run: what the Coder did not write. Not shown to
   * the Debugger; the evidence check uses it to tell planted text from the project's own.
   */
  pristine: SourceFile[];
  implementation: SourceFile[];
  history: { attempt: number; files: SourceFile[]; failure: string }[];
}
