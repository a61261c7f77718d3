import type { z } from 'zod';
import { ModelContractError } from '../../errors';
import type { ModelRole } from '../../schema/events';
import { ReviewVerdict, TestReview, type ReviewBlocker } from '../../schema/gates';
import type { RunContext } from '../common/context';
import { callModel } from '../common/modelCall';
import { structuredSpecFromZod } from '../common/structured';

/** Collapses whitespace so a quote that wraps differently still counts as verbatim. */
const squash = (s: string): string => s.replace(/\s+/g, ' ').trim();

export interface StructuredAsk<T> {
  role: ModelRole;
  attempt: number;
  system: string;
  prompt: string;
  tool: { name: string; description: string };
  schema: z.ZodType<T>;
  /** Deterministic checks of a schema-valid answer: each string is a reason to refuse it. */
  verify?: (value: T) => string[];
}

/**
 * Asks a reviewer for a structured answer, validates it with zod and the caller's checks, and
 * asks once more after a refusal (saying why). Two refusals: no usable answer (null), with
 * every reason kept. Any other error (the transport, a broken provider) is not the answer's
 * fault and is not asked again.
 */
export async function askStructured<T>(ctx: RunContext, ask: StructuredAsk<T>): Promise<{ value: T | null; rejected: string[] }> {
  const rejected: string[] = [];
  const structured = structuredSpecFromZod(ask.tool.name, ask.tool.description, ask.schema);
  for (let n = 0; n < 2; n++) {
    const note = rejected.length
      ? `\n\nYour previous answer was refused: ${rejected[rejected.length - 1]}. Answer again through the ${ask.tool.name} tool.`
      : '';
    let raw: unknown;
    try {
      const response = await callModel(ctx, {
        role: ask.role,
        attempt: ask.attempt,
        system: ask.system,
        messages: [{ role: 'user', content: ask.prompt + note }],
        structured,
      });
      raw = response.structured;
      if (raw === undefined) raw = JSON.parse(response.text);
    } catch (err) {
      if (!(err instanceof ModelContractError || err instanceof SyntaxError)) throw err;
      rejected.push(err instanceof SyntaxError ? 'the answer is not JSON and used no tool' : err.message);
      continue;
    }
    const parsed = ask.schema.safeParse(raw);
    if (!parsed.success) {
      rejected.push(
        `the answer does not match its schema: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
      );
      continue;
    }
    const problems = ask.verify?.(parsed.data) ?? [];
    if (problems.length) {
      rejected.push(problems.join('; '));
      continue;
    }
    return { value: parsed.data, rejected };
  }
  return { value: null, rejected };
}

/**
 * The blockers whose file and quote check out against what the reviewer was shown: a file
 * must be one the reviewer saw, and a quote must be found in its inputs. The rest are dropped,
 * each with why: a claim the machine cannot find is not a blocker.
 */
export function verifiedBlockers(
  blockers: ReviewBlocker[],
  prompt: string,
  files: ReadonlySet<string>,
): { kept: ReviewBlocker[]; dropped: string[] } {
  // A quote may span lines of the diff: it is looked for with the diff's line markers taken out too.
  const haystack = `${squash(prompt)}\n${squash(prompt.replace(/^[+\- ]/gm, ''))}`;
  const kept: ReviewBlocker[] = [];
  const dropped: string[] = [];
  for (const b of blockers) {
    if (b.file !== undefined && !files.has(b.file)) dropped.push(`blocker "${b.claim}" names ${b.file}, which the review did not show`);
    else if (b.evidence !== undefined && !haystack.includes(squash(b.evidence)))
      dropped.push(`blocker "${b.claim}" quotes ${JSON.stringify(b.evidence)}, which is not in the review's inputs`);
    else kept.push(b);
  }
  return { kept, dropped };
}

export const REVIEW_TOOL = { name: 'review', description: 'Report the verdict on the change, with its blockers' };
export const TEST_REVIEW_TOOL = {
  name: 'test_review',
  description: 'Report whether the rendered tests check every acceptance criterion, with a corrected test plan if not',
};

export { ReviewVerdict, TestReview };
