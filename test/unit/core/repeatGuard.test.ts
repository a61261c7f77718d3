import assert from 'node:assert/strict';
import { join } from 'node:path';
import { changedStatements, REPEAT_SIMILARITY, similarity, textShape } from '../../../src/core/stages/router/repeatGuard';
import { TreeSitterParser } from '../../../src/node/parse/treeSitterParser';
import { repoRoot } from '../../support/tempProject';

/**
 * The repeat guard's measure on pairs of answers, with the real Tree-sitter grammar: what a
 * Coder that repeats itself would change to slip past an exact comparison (names, layout,
 * comments, quotes, numbers) must not matter; a different approach must.
 */

const parser = new TreeSitterParser({
  wasmDir: join(repoRoot, 'node_modules/tree-sitter-typescript'),
  runtimeWasmDir: join(repoRoot, 'node_modules/web-tree-sitter'),
});

const BASE = `import { parsePaginationParams } from '../utils/pagination';

export function listPosts(req: { query: Record<string, string | undefined> }) {
  const { page, perPage } = parsePaginationParams(req.query);
  return { status: 200, body: { page, perPage } };
}
`;

/** The flagged attempt: a guard on the clamped value. */
const FLAGGED = `import { MAX_PER_PAGE, parsePaginationParams } from '../utils/pagination';

export function listPosts(req: { query: Record<string, string | undefined> }) {
  const { page, perPage } = parsePaginationParams(req.query);
  const limit = perPage;
  if (limit > MAX_PER_PAGE) {
    return { status: 400, body: { error: 'perPage max is 100' } };
  }
  return { status: 200, body: { page, perPage } };
}
`;

async function change(after: string): Promise<string[]> {
  return changedStatements(
    'src/handlers/posts.ts',
    await parser.shape('src/handlers/posts.ts', BASE),
    await parser.shape('src/handlers/posts.ts', after),
  );
}

const alike = async (a: string, b: string) => similarity(await change(a), await change(b));

describe('the repeat guard: code structure, not text', () => {
  it('counts a renamed variable, new layout and comments, other quotes and other literals as the same approach', async () => {
    const disguised = `import { MAX_PER_PAGE, parsePaginationParams } from "../utils/pagination";
export function listPosts(req: { query: Record<string, string | undefined> }) {
  const { page, perPage } = parsePaginationParams(req.query);
  // Reject big pages (a new comment).
  const requested =
    perPage;
  /* the bound */ if (requested > MAX_PER_PAGE) { return { status: 400, body: { error: \`per page at most \${100}\` } }; }
  return { status: 200, body: { page, perPage } };
}
`;
    assert.equal(await alike(FLAGGED, disguised), 1);
  });

  it('counts one extra token of difference as the same approach, above the threshold', async () => {
    const tweaked = FLAGGED.replace("body: { error: 'perPage max is 100' }", "body: { error: 'perPage max is 100', max: MAX_PER_PAGE }");
    const s = await alike(FLAGGED, tweaked);
    assert.ok(s >= REPEAT_SIMILARITY && s < 1, `similarity ${s}`);
  });

  it('tells a genuinely different approach apart: the raw query checked before parsing', async () => {
    const different = `import { MAX_PER_PAGE, parsePaginationParams } from '../utils/pagination';

export function listPosts(req: { query: Record<string, string | undefined> }) {
  const raw = Number(req.query.perPage ?? '0');
  if (!Number.isNaN(raw) && raw > MAX_PER_PAGE) {
    return { status: 400, body: { error: 'perPage max is 100' } };
  }
  const { page, perPage } = parsePaginationParams(req.query);
  return { status: 200, body: { page, perPage } };
}
`;
    const s = await alike(FLAGGED, different);
    assert.ok(s < REPEAT_SIMILARITY, `similarity ${s}`);
  });

  it('finds no change in an answer that only renames and reformats what was there before the run', async () => {
    assert.deepEqual(await change(BASE.replace(/perPage/g, 'size').replace(/\n\n/g, '\n')), []);
  });

  it('the tokenizer the core falls back on without a parser agrees on names, comments and literals', () => {
    const a = changedStatements('a.ts', textShape(BASE), textShape(FLAGGED));
    const b = changedStatements(
      'a.ts',
      textShape(BASE),
      textShape(FLAGGED.replace(/limit/g, 'cap').replace("'perPage max is 100'", '"too many" /* why */')),
    );
    assert.equal(similarity(a, b), 1);
    assert.ok(
      similarity(
        a,
        changedStatements('a.ts', textShape(BASE), textShape(FLAGGED.replace('if (limit > MAX_PER_PAGE) {', 'for (const x of [limit]) {'))),
      ) < 1,
    );
  });
});
