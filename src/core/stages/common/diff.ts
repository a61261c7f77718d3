import { diffLines, structuredPatch } from 'diff';
import { baselineOf } from '../../run/baseline';
import type { RunContext } from './context';

/** A file the run's code writers changed: its content before the run and now (null: absent). */
export interface ChangedFile {
  path: string;
  before: string | null;
  after: string | null;
}

/** Writers whose changes are the ticket's code. Rendered tests and the ticket file are not. */
const CODE_WRITERS = new Set(['coder', 'autofix', 'op', 'repair'] as const);

/**
 * The cumulative diff of the run: every file a code writer touched, from its content before
 * the run's first write of it to its content on disk now. A file that is back to where it
 * started (a reverted repair) is not changed.
 */
export async function cumulativeChanges(ctx: Pick<RunContext, 'deps' | 'log'>): Promise<ChangedFile[]> {
  const baseline = baselineOf(ctx.log.events, CODE_WRITERS);
  const out: ChangedFile[] = [];
  for (const [path, hash] of [...baseline].sort(([a], [b]) => a.localeCompare(b))) {
    const before = hash === null ? null : await ctx.log.getBlob(hash);
    const after = await ctx.deps.workspace.readFile(path);
    if (before !== after) out.push({ path, before, after });
  }
  return out;
}

/** Lines without line-ending noise: CRLF and a final newline are not changes. */
const normalized = (s: string | null): string => (s === null ? '' : s.replace(/\r\n?/g, '\n').replace(/\n?$/, '\n').replace(/^\n$/, ''));

/** The 1-based lines of `after` that the change added or rewrote. */
export function changedLines(before: string | null, after: string | null): number[] {
  const out: number[] = [];
  let line = 1;
  for (const part of diffLines(normalized(before), normalized(after))) {
    if (part.removed) continue;
    if (part.added) for (let k = 0; k < part.count; k++) out.push(line + k);
    line += part.count;
  }
  return out;
}

/** A unified diff of one file, with `context` lines around each change. */
export function unifiedDiff(file: ChangedFile, context = 3): string {
  const patch = structuredPatch(file.path, file.path, normalized(file.before), normalized(file.after), undefined, undefined, { context });
  const header = [
    `--- ${file.before === null ? '/dev/null' : `a/${file.path}`}`,
    `+++ ${file.after === null ? '/dev/null' : `b/${file.path}`}`,
  ];
  // An empty side starts at line 0, as diff -u (and jsdiff's own formatPatch) writes it.
  const range = (start: number, lines: number) => `${lines === 0 ? start - 1 : start}${lines === 1 ? '' : `,${lines}`}`;
  const hunks = patch.hunks.flatMap((h) => [`@@ -${range(h.oldStart, h.oldLines)} +${range(h.newStart, h.newLines)} @@`, ...h.lines]);
  return [...header, ...hunks].join('\n');
}
