import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import { AppliedFix, CodeDiagnostic, LintProblem, ParseProblem, TestRunResult } from '../../src/core/schema/checks';
import { TypeCheckTool } from '../../src/core/schema/gates';
import { TicketOp } from '../../src/core/schema/ticket';
import { candidateKey, type Candidate } from './candidateKey';

/**
 * What the real ports answered during the recorder's runs (scripts/recordFakes.ts), one file
 * per fixture under test/fakes/recorded/. Read with zod: a hand-edited or stale file fails
 * loudly at load, not as a strange route in a test.
 */

const OpResult = z.union([
  z
    .object({ ok: z.literal(true), edits: z.array(z.object({ path: z.string(), before: z.string(), after: z.string() }).strict()) })
    .strict(),
  z
    .object({
      ok: z.literal(false),
      reason: z.string(),
      suggestion: z.string(),
      at: z.object({ file: z.string(), line: z.number() }).strict().optional(),
      proposal: z
        .union([
          z.object({ kind: z.literal('scopeAddition'), paths: z.array(z.string()) }).strict(),
          z.object({ kind: z.literal('opEdit'), op: TicketOp, summary: z.string() }).strict(),
        ])
        .optional(),
    })
    .strict(),
]);

/** The gates' ports' answers (src/core/ports/gates.ts), as zod reads them back. */
const TypeCheckResult = z
  .object({
    status: z.enum(['passed', 'failed', 'skipped', 'error']),
    diagnostics: z.array(CodeDiagnostic),
    tool: TypeCheckTool.nullable(),
    detail: z.string(),
    durationMs: z.number(),
  })
  .strict();
const CoverageResult = z
  .object({
    status: z.enum(['measured', 'unavailable', 'error']),
    source: z.enum(['v8', 'vitest', 'jest']).optional(),
    tests: TestRunResult.optional(),
    files: z.array(z.object({ file: z.string(), lines: z.array(z.tuple([z.number(), z.number()])) }).strict()),
    absent: z.array(z.string()).optional(),
    unloaded: z.array(z.string()).optional(),
    detail: z.string().optional(),
  })
  .strict();
const BuildResult = z
  .object({
    status: z.enum(['passed', 'failed', 'timeout', 'error']),
    exitCode: z.number().nullable(),
    output: z.string(),
    durationMs: z.number(),
  })
  .strict();

/** Each port operation and what it answers; `autofix` also carries the files its fixes rewrote. */
const ANSWERS = {
  'tests.run': TestRunResult,
  'diagnostics.check': z
    .object({ checkedFiles: z.array(z.string()), diagnostics: z.array(CodeDiagnostic), checkedBy: z.string().optional() })
    .strict(),
  'diagnostics.autofix': z
    .object({ applied: z.array(AppliedFix), refused: z.array(AppliedFix), writes: z.record(z.string(), z.string()) })
    .strict(),
  'diagnostics.probe': z.array(CodeDiagnostic),
  'diagnostics.resolveSymbol': z.string().nullable(),
  'lint.lint': z
    .object({ status: z.enum(['passed', 'failed', 'skipped', 'error']), problems: z.array(LintProblem), detail: z.string().optional() })
    .strict(),
  'parser.parse': z.array(ParseProblem),
  'parser.shape': z.array(z.string()),
  'ops.apply': OpResult,
  'gates.typecheck': TypeCheckResult,
  'gates.coverage': CoverageResult,
  'gates.measuresAsItRuns': z.boolean(),
  'gates.build': BuildResult,
} as const;

export type RecordedOp = keyof typeof ANSWERS;
export type AnswerOf<Op extends RecordedOp> = z.infer<(typeof ANSWERS)[Op]>;

const Entry = z
  .object({
    op: z.enum(Object.keys(ANSWERS) as [RecordedOp, ...RecordedOp[]]),
    key: z.string(),
    /** For a reader of the file: the question in one line. */
    asked: z.string(),
    answer: z.unknown().optional(),
    /** The real port threw: the fake throws the same message. */
    error: z.string().optional(),
  })
  .strict()
  .superRefine((e, ctx) => {
    if (e.error !== undefined) return;
    const parsed = ANSWERS[e.op].safeParse(e.answer);
    if (!parsed.success)
      ctx.addIssue({
        code: 'custom',
        message: `${e.op} (${e.asked}): ${parsed.error.issues.map((i) => `$.${i.path.join('.')}: ${i.message}`).join('; ')}`,
      });
  });
export type RecordedEntry = z.infer<typeof Entry>;

export const RecordingFile = z
  .object({
    $comment: z.string(),
    fixture: z.string(),
    /** The stand-in for the copy's absolute path in stacks and outputs: no path of the recording machine is kept. */
    workspaceRoot: z.string(),
    /** The runs recorded, in words: which tickets, which scripts, which decisions. */
    runs: z.array(z.string()),
    entries: z.array(Entry),
  })
  .strict();
export type RecordingFile = z.infer<typeof RecordingFile>;

export const RECORDED_DIR = path.join(__dirname, 'recorded');
export const RECORDER = 'npx tsx scripts/recordFakes.ts';

/** A question the recorder's runs never asked: the fake cannot make its answer up. */
export class NotRecordedError extends Error {
  override readonly name = 'NotRecordedError';
}

/** One fixture's recorded answers, looked up by candidate key. */
export class Recording {
  private readonly byKey = new Map<string, RecordedEntry>();

  constructor(readonly file: RecordingFile) {
    for (const e of file.entries) if (!this.byKey.has(e.key)) this.byKey.set(e.key, e);
  }

  static load(fixture: string): Recording {
    const where = path.join(RECORDED_DIR, `${fixture}.json`);
    const parsed = RecordingFile.safeParse(JSON.parse(readFileSync(where, 'utf8')));
    if (!parsed.success)
      throw new Error(
        `test/fakes/recorded/${fixture}.json does not hold valid recordings (${parsed.error.issues
          .slice(0, 3)
          .map((i) => i.message)
          .join('; ')}): re-run ${RECORDER}`,
      );
    return new Recording(parsed.data);
  }

  answer<Op extends RecordedOp>(op: Op, args: unknown, candidate: Candidate, asked: string): AnswerOf<Op> {
    const entry = this.byKey.get(candidateKey(op, args, candidate));
    if (!entry) {
      const changed = [...candidate.keys()].sort().join(', ') || 'none';
      throw new NotRecordedError(
        `no recorded answer of ${op} for ${asked} with these files changed from the ${this.file.fixture} fixture: ${changed}. The fakes answer only what a real run answered: add the run to scripts/recordFakes.ts and re-run ${RECORDER}`,
      );
    }
    if (entry.error !== undefined) throw new Error(entry.error);
    // Validated at load; a copy, so a caller that changes its answer cannot change the next one.
    return structuredClone(entry.answer) as AnswerOf<Op>;
  }
}
