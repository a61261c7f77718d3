import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { ModelScript, ScriptedAnswer } from '../../src/node/models/scripted';
import { fixtureScript } from './fakeDeps';
import { FIXTURES } from './memoryWorkspace';

/**
 * BLOG-1's scripts beyond the fixture's own: the recorder runs them once with the real tools,
 * so the candidates they write have recorded answers, and the pure tests replay them (and
 * vary the model's side: diagnoses, faults) on the same candidates.
 */

const ANSWERS = path.join(FIXTURES, 'blog-api', '.tickets', 'answers', 'BLOG-1');
export const POSTS = 'src/handlers/posts.ts';
const GUARD = 'if (perPage > MAX_PER_PAGE) {';

/** The fixture's recorded answers: attempt 1 guards the clamped value (wrong), attempt 2 the raw one. */
export const wrong = (): string => readFileSync(path.join(ANSWERS, 'attempt1.ts'), 'utf8');
export const right = (): string => readFileSync(path.join(ANSWERS, 'attempt2.ts'), 'utf8');
/** Two more wrong approaches, each a different code structure, so the repeat guard has no reason to step in. */
export const wrongB = (): string => wrong().replace(GUARD, 'if (perPage >= MAX_PER_PAGE + 1) {');
export const wrongC = (): string => wrong().replace(GUARD, 'if (perPage > 100) {');
/** The wrong answer again with its names changed and a comment: the same code structure. */
export const repeated = (): string =>
  wrong()
    .replace(/\breq\b/g, 'request')
    .replace(GUARD, `// Too many per page: refuse.\n  ${GUARD}`);

/**
 * The fixture's diagnosis of attempt 1, for attempt n: past attempt 1 the handler's flagged
 * guard is no longer the latest code, so the Debugger finds that quote in the history.
 */
export function diagnosisFor(attempt: number): ScriptedAnswer {
  const recorded = fixtureScript('blog-api', 'BLOG-1').debugger[0]!;
  const structured = recorded.structured as { evidence: { source: string; file?: string; quote: string }[] };
  const fromHistory = (e: { source: string; file?: string; quote: string }) =>
    attempt > 1 && e.file === POSTS ? { source: 'history', quote: e.quote } : e;
  return {
    ...recorded,
    structured: { ...structured, evidence: structured.evidence.map(fromHistory) },
    expect: { attempt, promptIncludes: [] },
  };
}

export const coderWrites = (attempt: number, content: string, more: Partial<NonNullable<ModelScript['coder']>[number]> = {}) => ({
  expect: { attempt, promptIncludes: [] },
  files: { [POSTS]: content },
  ...more,
});

/** Rungs 2, 2 and 3: three wrong approaches, then the fix on the thinking attempt. */
export const ladderScript = (): Partial<ModelScript> => ({
  coder: [coderWrites(1, wrong()), coderWrites(2, wrongB()), coderWrites(3, wrongC()), coderWrites(4, right())],
  debugger: [1, 2, 3].map(diagnosisFor),
});

/** The flagged approach again, disguised: the repeat guard escalates to the operator. */
export const repeatScript = (): Partial<ModelScript> => ({
  coder: [coderWrites(1, wrong()), coderWrites(2, repeated())],
  debugger: [1, 2].map(diagnosisFor),
});

/** What a Coder says when it will not write code: rung 1's urgent anomaly. */
export const PROSE = 'I am not sure which file you want changed. Could you clarify what listPosts should answer for perPage=500?';

/** Prose twice on attempt 1 (rung 1's retry too): an attempt that writes nothing, then the fix. */
export const proseScript = (): Partial<ModelScript> => ({
  coder: [
    { expect: { attempt: 1, promptIncludes: [] }, text: PROSE },
    { expect: { attempt: 1, promptIncludes: [] }, text: PROSE },
    coderWrites(2, right()),
  ],
});
