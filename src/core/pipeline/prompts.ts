import type { Manifest } from '../schema/manifest';
import { describeTampering, type TamperedFile } from './oracle';
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
  /** Rendered tests or the ticket the code changed during the attempt (restored since): a code fault. */
  tampered?: TamperedFile[];
}

export function describeFailure(f: FailureEvidence): string {
  const out: string[] = describeTampering(f.tampered ?? []);
  for (const p of f.parse) out.push(`${p.file}:${p.line}:${p.column} syntax ${p.kind}: ${p.text}`);
  for (const d of f.diagnostics) out.push(`${d.file}:${d.line}:${d.column} ${d.code}: ${d.message}`);
  for (const x of f.impossibleExpectations ?? []) out.push(`${x.file} "${x.caseName}": expects ${x.actual} to equal ${x.expected}, which its declared type cannot hold (${x.code}: ${x.message})`);
  for (const r of f.refusedFixes ?? []) out.push(`${r.file} ${r.code}: the fix "${r.description}" would change ${r.files.join(', ')}, outside the scope`);
  for (const l of f.lint) out.push(`${l.file}:${l.line}:${l.column} lint ${l.rule ?? ''}: ${l.message}`);
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
  'Answer with the whole new content of every file you change, each in a fenced block whose info string names the path:',
  '```ts file=src/example.ts',
  '// the whole file',
  '```',
  'Never write test files: the tests are the oracle. Do not explain; code only.',
].join('\n');

export function manifestSummary(m: Manifest): string {
  return [
    `Ticket ${m.ticketId}: ${m.title}`,
    m.description,
    `Acceptance criteria:\n${m.acceptance.map((a) => `- ${a.id}: ${a.text}`).join('\n')}`,
    `You may write: ${m.scope.write.map((f) => f.path + (f.exists ? '' : ' (new)')).join(', ')}`,
    m.scope.read.length ? `You may read: ${m.scope.read.map((f) => f.path).join(', ')}` : '',
    `Tests (read-only): ${m.testFiles.join(', ')}`,
    m.facts.length ? `Facts from the language service:\n${m.facts.map((f) => `- ${f.file} ${f.symbol}: ${f.signature ?? 'does not resolve'}`).join('\n')}` : '',
  ]
    .filter(Boolean)
    .join('\n\n');
}

export function coderPrompt(input: { manifest: Manifest; files: SourceFile[]; tests: SourceFile[]; brief?: string; lastFailure?: string }): string {
  return [
    manifestSummary(input.manifest),
    `Files in scope:\n${input.files.map(fence).join('\n')}`,
    `Test files:\n${input.tests.map(fence).join('\n')}`,
    input.lastFailure ? `The last attempt failed:\n${input.lastFailure}` : '',
    input.brief ? `Corrective brief from the Debugger:\n${input.brief}` : '',
  ]
    .filter(Boolean)
    .join('\n\n');
}

export const DEBUGGER_SYSTEM = [
  "You are the Debugger of Ticket Runner. You never see the Coder's reasoning, only its code and the results.",
  'Decide who owns the fix: "code" (the implementation is wrong), "manifest" (the scope misses a file the change needs),',
  '"test" (the test expectation contradicts the ticket), or "ticket" (the ticket names something that does not exist).',
  'Quote your evidence verbatim from the inputs below; a quote that is not found rejects the diagnosis.',
  'Answer through the diagnosis tool.',
].join('\n');

export interface DebuggerInputs {
  manifest: string;
  testFiles: SourceFile[];
  testOutput: string;
  implementation: SourceFile[];
  history: { attempt: number; files: SourceFile[]; failure: string }[];
}

export function debuggerPrompt(i: DebuggerInputs): string {
  return [
    `## Manifest\n${i.manifest}`,
    `## Test files\n${i.testFiles.map(fence).join('\n')}`,
    `## Latest test output\n${i.testOutput}`,
    `## Latest implementation\n${i.implementation.map(fence).join('\n')}`,
    i.history.length
      ? `## Attempt history\n${i.history.map((h) => `### Attempt ${h.attempt}\n${h.files.map(fence).join('\n')}\nFailure:\n${h.failure}`).join('\n')}`
      : '',
  ]
    .filter(Boolean)
    .join('\n\n');
}
