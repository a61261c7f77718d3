import { baselineOf } from '../../run/baseline';
import type { RunContext } from '../common/context';
import type { SourceFile } from '../common/evidence';

/** What the Coder's writes replaced: the code as the ticket left it (the project, plus the ticket's typed ops). */
const CODE_WRITERS = new Set(['coder', 'autofix', 'repair'] as const);

/**
 * The files the Coder's attempts (and the fixes and repairs made on them) changed, as they were
 * before: the project as it was, plus what the ticket itself declared through its typed ops.
 * The guards type-check the rendered tests against this, never against the Coder's code: a
 * type error that exists only because of the Coder's change is a fault of the code, not a fact
 * about the test. A file the Coder created stands as an empty module.
 */
export async function preCoderOverlays(ctx: Pick<RunContext, 'log'>): Promise<SourceFile[]> {
  const out: SourceFile[] = [];
  for (const [path, hash] of baselineOf(ctx.log.events, CODE_WRITERS)) {
    if (!/\.[cm]?[jt]sx?$/.test(path)) continue;
    out.push({ path, content: hash === null ? 'export {};\n' : await ctx.log.getBlob(hash) });
  }
  return out;
}
