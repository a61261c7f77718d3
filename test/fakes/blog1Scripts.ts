import type { ModelScript } from '../../src/node/models/scripted';
import { answer, blog1Diagnosis } from '../support/rungRuns';
import { FIXTURES } from './memoryWorkspace';
import * as path from 'node:path';

/**
 * BLOG-1's scripts beyond the fixture's own: the recorder runs them once with the real tools,
 * so the candidates they write have recorded answers, and the pure tests replay them (and
 * vary the model's side: diagnoses, faults) on the same candidates.
 */

const BLOG_API = path.join(FIXTURES, 'blog-api');
export const POSTS = 'src/handlers/posts.ts';
const GUARD = 'if (perPage > MAX_PER_PAGE) {';

/** The fixture's recorded answers: attempt 1 guards the clamped value (wrong), attempt 2 the raw one. */
export const wrong = (): string => answer(BLOG_API, 'BLOG-1', 'attempt1.ts');
export const right = (): string => answer(BLOG_API, 'BLOG-1', 'attempt2.ts');
/** Two more wrong approaches, each a different code structure, so the repeat guard has no reason to step in. */
export const wrongB = (): string => wrong().replace(GUARD, 'if (perPage >= MAX_PER_PAGE + 1) {');
export const wrongC = (): string => wrong().replace(GUARD, 'if (perPage > 100) {');
/** The wrong answer again with its names changed and a comment: the same code structure. */
export const repeated = (): string => wrong().replace(/\breq\b/g, 'request').replace(GUARD, `// Too many per page: refuse.\n  ${GUARD}`);

/** The fixture's diagnosis of attempt 1, for attempt n (its quotes move to the history past attempt 1). */
export const diagnosisFor = (attempt: number) => blog1Diagnosis(BLOG_API, attempt);

export const coderWrites = (attempt: number, content: string, more: Partial<NonNullable<ModelScript['coder']>[number]> = {}) => ({ expect: { attempt, promptIncludes: [] }, files: { [POSTS]: content }, ...more });

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
