import type { RunContext } from '../context';

/** A file the run's code writers changed: its content before the run and now (null: absent). */
export interface ChangedFile {
  path: string;
  before: string | null;
  after: string | null;
}

/** Writers whose changes are the ticket's code. Rendered tests and the ticket file are not. */
const CODE_WRITERS = new Set(['coder', 'autofix', 'op', 'repair']);

/**
 * The cumulative diff of the run: every file a code writer touched, from its content before
 * the run's first write of it to its content on disk now. A file that is back to where it
 * started (a reverted repair) is not changed.
 */
export async function cumulativeChanges(ctx: Pick<RunContext, 'deps' | 'log'>): Promise<ChangedFile[]> {
  const baseline = new Map<string, string | null>();
  for (const e of ctx.log.events) {
    if (e.type !== 'files.written' || !CODE_WRITERS.has(e.by)) continue;
    for (const f of e.files) if (!baseline.has(f.path)) baseline.set(f.path, f.before);
  }
  const out: ChangedFile[] = [];
  for (const [path, hash] of [...baseline].sort(([a], [b]) => a.localeCompare(b))) {
    const before = hash === null ? null : await ctx.log.getBlob(hash);
    const after = await ctx.deps.workspace.readFile(path);
    if (before !== after) out.push({ path, before, after });
  }
  return out;
}

type Edit = { op: 'same' | 'del' | 'add'; text: string; a: number; b: number };

/** Past this many cells the middle of a diff is reported as replaced wholesale. */
const MAX_CELLS = 4_000_000;

const splitLines = (s: string | null): string[] => (s === null || s === '' ? [] : s.replace(/\r\n?/g, '\n').replace(/\n$/, '').split('\n'));

/** A line diff (longest common subsequence), with the common head and tail trimmed first. */
function diffLines(a: string[], b: string[]): Edit[] {
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const am = a.slice(head, a.length - tail);
  const bm = b.slice(head, b.length - tail);
  const edits: Edit[] = [];
  for (let i = 0; i < head; i++) edits.push({ op: 'same', text: a[i]!, a: i + 1, b: i + 1 });
  const n = am.length;
  const m = bm.length;
  if (n * m > MAX_CELLS) {
    for (let i = 0; i < n; i++) edits.push({ op: 'del', text: am[i]!, a: head + i + 1, b: head });
    for (let j = 0; j < m; j++) edits.push({ op: 'add', text: bm[j]!, a: head + n, b: head + j + 1 });
  } else {
    // lcs[i][j]: the LCS length of am[i..] and bm[j..], flattened.
    const lcs = new Uint32Array((n + 1) * (m + 1));
    for (let i = n - 1; i >= 0; i--) {
      for (let j = m - 1; j >= 0; j--) {
        lcs[i * (m + 1) + j] = am[i] === bm[j] ? lcs[(i + 1) * (m + 1) + j + 1]! + 1 : Math.max(lcs[(i + 1) * (m + 1) + j]!, lcs[i * (m + 1) + j + 1]!);
      }
    }
    let i = 0;
    let j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && am[i] === bm[j]) {
        edits.push({ op: 'same', text: am[i]!, a: head + i + 1, b: head + j + 1 });
        i++;
        j++;
      } else if (i < n && (j === m || lcs[(i + 1) * (m + 1) + j]! >= lcs[i * (m + 1) + j + 1]!)) {
        // Deletions first on a tie, as diff(1) writes a replaced line.
        edits.push({ op: 'del', text: am[i]!, a: head + i + 1, b: head + j });
        i++;
      } else {
        edits.push({ op: 'add', text: bm[j]!, a: head + i, b: head + j + 1 });
        j++;
      }
    }
  }
  for (let k = tail; k > 0; k--) edits.push({ op: 'same', text: a[a.length - k]!, a: a.length - k + 1, b: b.length - k + 1 });
  return edits;
}

/** The 1-based lines of `after` that the change added or rewrote. */
export function changedLines(before: string | null, after: string | null): number[] {
  return diffLines(splitLines(before), splitLines(after))
    .filter((e) => e.op === 'add')
    .map((e) => e.b);
}

/** A unified diff of one file, with `context` lines around each change. */
export function unifiedDiff(file: ChangedFile, context = 3): string {
  const edits = diffLines(splitLines(file.before), splitLines(file.after));
  const header = [`--- ${file.before === null ? '/dev/null' : `a/${file.path}`}`, `+++ ${file.after === null ? '/dev/null' : `b/${file.path}`}`];
  const hunks: string[] = [];
  let k = 0;
  while (k < edits.length) {
    if (edits[k]!.op === 'same') {
      k++;
      continue;
    }
    const start = Math.max(0, k - context);
    let end = k;
    // Extend the hunk while the next change is within two contexts of the last one.
    for (let next = k; next < edits.length; next++) {
      if (edits[next]!.op !== 'same') end = next;
      else if (next - end > 2 * context) break;
    }
    const stop = Math.min(edits.length, end + context + 1);
    const part = edits.slice(start, stop);
    const aLines = part.filter((e) => e.op !== 'add').length;
    const bLines = part.filter((e) => e.op !== 'del').length;
    const aStart = part.find((e) => e.op !== 'add')?.a ?? part[0]!.a;
    const bStart = part.find((e) => e.op !== 'del')?.b ?? part[0]!.b;
    hunks.push(`@@ -${aStart}${aLines === 1 ? '' : `,${aLines}`} +${bStart}${bLines === 1 ? '' : `,${bLines}`} @@`);
    for (const e of part) hunks.push(`${e.op === 'same' ? ' ' : e.op === 'del' ? '-' : '+'}${e.text}`);
    k = stop;
  }
  return [...header, ...hunks].join('\n');
}
