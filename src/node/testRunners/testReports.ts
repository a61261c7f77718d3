import { z } from 'zod';
import { TestCaseResult } from '../../core/schema/checks';
import { parseToolJson } from '../../core/schema/toolOutput';
import { workspacePath } from '../workspacePaths';
import { showValue } from './showValue';

/** What a runner's report says. `complete` is false when the report stops before its end. */
export interface ParsedReport {
  cases: TestCaseResult[];
  complete: boolean;
}

/** Every parser throws on a report it cannot read; the runner turns that into status 'error'. */
export type ReportParser = (report: string, root: string) => ParsedReport;

/** The JSON lines of nodeTestReporter. A partial file (a killed run) still yields its cases. */
export const parseNodeTestReport: ReportParser = (report, root) => {
  const cases: TestCaseResult[] = [];
  let complete = false;
  let unreadable = 0;
  for (const line of report.split('\n')) {
    if (!line.trim()) continue;
    let record: unknown;
    try {
      record = JSON.parse(line);
    } catch {
      // A run killed mid-write leaves half a line.
      unreadable++;
      continue;
    }
    if (isRecord(record) && record.type === 'end') {
      complete = true;
      continue;
    }
    if (!isRecord(record) || record.type !== 'test') throw new Error(`not a nodeTestReporter record: ${line.slice(0, 200)}`);
    const { type: _type, ...fields } = record;
    const parsed = TestCaseResult.parse(fields);
    if (parsed.file) {
      // node:test names a file that failed to load by its absolute path.
      if (parsed.name === parsed.file) parsed.name = workspacePath(root, parsed.file);
      parsed.file = workspacePath(root, parsed.file);
    }
    cases.push(parsed);
  }
  if (unreadable > 1 || (unreadable === 1 && complete)) throw new Error('garbled nodeTestReporter output');
  return { cases, complete };
};

/**
 * The reports come out of the process that ran the code under test: each is read through a
 * schema that requires only what is read here, and lets every other field through.
 */
const JestReport = z.looseObject({
  testResults: z.array(
    z.looseObject({
      name: z.string().optional(),
      testFilePath: z.string().optional(),
      status: z.string().optional(),
      message: z.string().optional(),
      assertionResults: z
        .array(
          z.looseObject({
            ancestorTitles: z.array(z.string()).optional(),
            title: z.string(),
            status: z.string(),
            duration: z.number().nullable().optional(),
            failureMessages: z.array(z.string()).optional(),
            failureDetails: z.array(z.unknown()).optional(),
          }),
        )
        .optional(),
    }),
  ),
});

const MochaTest = z.looseObject({
  title: z.string().optional(),
  fullTitle: z.string().optional(),
  file: z.string().optional(),
  duration: z.number().optional(),
  err: z
    .looseObject({
      message: z.unknown().optional(),
      stack: z.unknown().optional(),
      expected: z.unknown().optional(),
      actual: z.unknown().optional(),
    })
    .optional(),
});
type MochaTest = z.infer<typeof MochaTest>;

const MochaReport = z.looseObject({
  passes: z.array(MochaTest),
  failures: z.array(MochaTest),
  pending: z.array(MochaTest).optional(),
});

/** Jest's --json report; vitest's json reporter writes the same shape, without failureDetails. */
export const parseJestReport: ReportParser = (report, root) => {
  const json = parseToolJson(JestReport, report, 'the JSON report of jest or vitest is not one they write');
  const cases: TestCaseResult[] = [];
  for (const suite of json.testResults) {
    const file = workspacePath(root, suite.name ?? suite.testFilePath ?? '');
    const assertions = suite.assertionResults ?? [];
    for (const a of assertions) {
      const failure = a.failureMessages?.join('\n');
      const matcher = a.failureDetails
        ?.map((d) => (isRecord(d) && isRecord(d.matcherResult) ? d.matcherResult : undefined))
        .find((m) => m && 'expected' in m);
      cases.push({
        name: [...(a.ancestorTitles ?? []), a.title].join(' > '),
        file,
        status: a.status === 'passed' ? 'passed' : a.status === 'failed' ? 'failed' : 'skipped',
        ...(typeof a.duration === 'number' ? { durationMs: a.duration } : {}),
        ...(a.status === 'failed' && failure ? splitStack(failure) : {}),
        ...(matcher ? { expected: showValue(matcher.expected), actual: showValue(matcher.actual) } : {}),
      });
    }
    // A file that failed before any test ran (a syntax error, a failed import) has no assertions.
    if (suite.status === 'failed' && !assertions.some((a) => a.status === 'failed')) {
      cases.push({ name: file, file, status: 'failed', message: suite.message || 'the test file failed to run' });
    }
  }
  return { cases, complete: true };
};

/** Mocha's json reporter. Hook failures appear only among the failures, so read the three lists. */
export const parseMochaReport: ReportParser = (report, root) => {
  const json = parseToolJson(MochaReport, report, "mocha's JSON report is not one its json reporter writes");
  const toCase = (t: MochaTest, status: TestCaseResult['status']): TestCaseResult => {
    const err = status === 'failed' ? t.err : undefined;
    return {
      name: t.fullTitle ?? t.title ?? '',
      ...(t.file ? { file: workspacePath(root, t.file) } : {}),
      status,
      ...(typeof t.duration === 'number' ? { durationMs: t.duration } : {}),
      ...(err?.message !== undefined ? { message: showRendered(err.message) } : {}),
      ...(err && 'expected' in err ? { expected: showRendered(err.expected), actual: showRendered(err.actual) } : {}),
      ...(typeof err?.stack === 'string' ? { stack: err.stack } : {}),
    };
  };
  const cases = [
    ...json.passes.map((t) => toCase(t, 'passed')),
    ...json.failures.map((t) => toCase(t, 'failed')),
    ...(json.pending ?? []).map((t) => toCase(t, 'skipped')),
  ];
  return { cases, complete: true };
};

/** Mocha's json reporter prints to stdout when it cannot write a file (mocha before 10): the report is the outermost object. */
export function jsonObjectIn(stdout: string): string | undefined {
  const start = stdout.indexOf('{\n');
  const end = stdout.lastIndexOf('}');
  return start >= 0 && end > start ? stdout.slice(start, end + 1) : undefined;
}

/** "Error: message\n    at ..." → the message and the whole text as the stack. */
function splitStack(text: string): { message: string; stack?: string } {
  const at = text.search(/\n\s+at /);
  return at < 0 ? { message: text } : { message: text.slice(0, at), stack: text };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Mocha has already rendered a value it can diff as a string; anything else is shown as is. */
function showRendered(value: unknown): string {
  return typeof value === 'string' ? value : showValue(value);
}
