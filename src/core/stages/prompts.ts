import type { Manifest } from '../schema/manifest';
import { declaredForCoder } from './ops/declared';
import { describeTampering, type TamperedFile } from './checks/oraclePins';
import type { AppliedFix, TestRunResult, CodeDiagnostic, ParseProblem, LintProblem } from '../schema/checks';

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
  for (const x of f.impossibleExpectations ?? []) out.push(`${x.file} "${x.caseName}": expects ${x.actual} to equal ${x.expected}, which its declared type cannot hold (${x.code}: ${x.message})`);
  for (const r of f.refusedFixes ?? []) out.push(`${r.file} ${r.code}: the fix "${r.description}" would change ${r.files.join(', ')}, outside the scope`);
  for (const l of f.lint) out.push(`${l.file}:${l.line}:${l.column} lint ${l.rule ?? ''}: ${l.message}`);
  if (f.tooNarrow) out.push(...describeTooNarrow(f.tooNarrow));
  for (const r of f.regressions ?? []) out.push(`existing project test now fails (it passed before the run): ${r.test}${r.message ? `\n${r.message}` : ''}`);
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

const fence = (f: SourceFile): string => `--- ${f.path}\n${f.content}${f.content.endsWith('\n') ? '' : '\n'}--- end ${f.path}`;

export const CODER_SYSTEM = [
  'You are the Coder of Ticket Runner. You change only the files the manifest lets you write.',
  'Make your changes with the str_replace_based_edit_tool: str_replace with an old_str copied exactly from the file (whitespace included) that occurs',
  'once in it, insert to add lines, create for a new file, view to read a file with line numbers. Change only what the ticket needs:',
  'never rewrite a whole existing file, and never stand in for code with a comment such as "// ... existing code ...".',
  'A tool error says what to fix: correct the call and go on. When every change is made, end your turn with one line that says what you changed.',
  'If no tool is offered, answer instead with the whole new content of every file you change, each in a fenced block whose info string names the path:',
  '```ts file=src/example.ts',
  '// the whole file, nothing left out',
  '```',
  'Never write test files: the tests are the oracle.',
].join('\n');

export function manifestSummary(m: Manifest): string {
  return [
    `Ticket ${m.ticketId}: ${m.title}`,
    m.description,
    `Acceptance criteria:\n${m.acceptance.map((a) => `- ${a.id}: ${a.text}`).join('\n')}`,
    `You may write: ${m.scope.write.map((f) => f.path + (f.exists ? '' : ' (new)')).join(', ')}`,
    m.scope.read.length ? `You may read: ${m.scope.read.map((f) => f.path).join(', ')}` : '',
    `Tests (read-only): ${m.testFiles.join(', ')}`,
    declaredForCoder(m.ops),
    m.facts.length ? `Facts from the language service:\n${m.facts.map((f) => `- ${f.file} ${f.symbol}: ${f.signature ?? 'does not resolve'}`).join('\n')}` : '',
  ]
    .filter(Boolean)
    .join('\n\n');
}

/**
 * The part of the Coder's prompt that stays the same for every call of a run: the ticket, the
 * manifest, the files in scope as they were before the run, and the tests. It comes first and
 * ends at a cache breakpoint, so a retry (and each turn of an edit conversation) reads it from
 * the provider's prompt cache instead of paying for it again.
 */
export function coderContext(input: { manifest: Manifest; files: SourceFile[]; tests: SourceFile[] }): string {
  return [
    manifestSummary(input.manifest),
    `Files in scope, as they were before this run:\n${input.files.map(fence).join('\n')}`,
    `Test files:\n${input.tests.map(fence).join('\n')}`,
  ].join('\n\n');
}

/**
 * What changes from call to call, after the breakpoint: the run's changes to the files since
 * (unified diffs, so the files themselves are not sent again), the last failure and the brief.
 */
export function coderTask(input: { changes: string[]; brief?: string; lastFailure?: string }): string {
  return [
    input.changes.length
      ? `The files in scope have changed since the run started (earlier attempts, structural fixes); they now differ from the above by:\n${input.changes.join('\n')}\nEdit them as they are now: view a file to see it whole.`
      : '',
    input.lastFailure ? `The last attempt failed:\n${input.lastFailure}` : '',
    input.brief ? `Corrective brief from the Debugger:\n${input.brief}` : '',
    'Make the change the ticket asks for.',
  ]
    .filter(Boolean)
    .join('\n\n');
}

/** Past this many, older flagged approaches add length, not guidance; each is cut to a line or two. */
const MAX_FLAGGED = 12;
const MAX_FLAGGED_CHARS = 300;

/**
 * The corrective brief the Coder gets after a diagnosis routed to code: the Debugger's brief and
 * every approach flagged so far in the segment (this diagnosis's `avoid` and the earlier ones),
 * so a retry is told what not to try again, not only what to try.
 */
export function correctiveBrief(brief: string | undefined, flagged: string[]): string | undefined {
  const seen = new Set<string>();
  const items: string[] = [];
  for (const raw of flagged) {
    const one = raw.replace(/\s+/g, ' ').trim();
    const item = one.length > MAX_FLAGGED_CHARS ? `${one.slice(0, MAX_FLAGGED_CHARS)}…` : one;
    if (item && !seen.has(item)) {
      seen.add(item);
      items.push(item);
    }
  }
  const kept = items.slice(-MAX_FLAGGED);
  const avoid = kept.length ? `Approaches already flagged as wrong; do not repeat them:\n${kept.map((a) => `- ${a}`).join('\n')}` : '';
  return [brief ?? '', avoid].filter(Boolean).join('\n\n') || undefined;
}

export const DEBUGGER_SYSTEM = [
  "You are the Debugger of Ticket Runner. You never see the Coder's reasoning, only its code and the results.",
  'Decide who owns the fix: "code" (the implementation is wrong), "manifest" (the scope misses a file the change needs),',
  '"test" (the test expectation contradicts the ticket), or "ticket" (the ticket names something that does not exist).',
  'Quote your evidence verbatim from the input you name as its source (testOutput, diagnostics, testFile, implementation, manifest, history);',
  'each quote needs at least 8 non-space characters, and one that is not found in its source rejects the diagnosis.',
  'Answer through the diagnosis tool.',
].join('\n');

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

/**
 * The Debugger's prompt in two parts. `context` is what stays the same for every diagnosis of a
 * run (the manifest, the tests, the errors that were there before), first, so it is read from
 * the prompt cache after the first; `findings` is this attempt's (its checks, test output, code
 * and the history so far).
 */
export function debuggerPromptParts(i: DebuggerInputs): { context: string; findings: string } {
  const join = (parts: string[]) => parts.filter(Boolean).join('\n\n');
  return {
    context: join([
      `## Manifest\n${i.manifest}`,
      `## Test files\n${i.testFiles.map(fence).join('\n')}`,
      i.preExisting ? `## Pre-existing (not counted): errors that were in the project before the run\n${i.preExisting}` : '',
    ]),
    findings: join([
      i.diagnostics ? `## Diagnostics\n${i.diagnostics}` : '',
      `## Latest test output\n${i.testOutput}`,
      `## Latest implementation\n${i.implementation.map(fence).join('\n')}`,
      i.history.length
        ? `## Attempt history\n${i.history.map((h) => `### Attempt ${h.attempt}\n${h.files.map(fence).join('\n')}\nFailure:\n${h.failure}`).join('\n')}`
        : '',
    ]),
  };
}

/** The Debugger's whole prompt, as one text (what the bench measures). */
export function debuggerPrompt(i: DebuggerInputs): string {
  const { context, findings } = debuggerPromptParts(i);
  return `${context}\n\n${findings}`;
}
