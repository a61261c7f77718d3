import { diffArrays } from 'diff';
import type { HashFn } from '../../ports/clock';
import type { WorkspacePort } from '../../ports/workspace';
import type { RunLog } from '../../run/runLog';
import { RunStop } from '../../recovery/runStop';
import type { UserEditConflict, UserEditWriter } from '../../schema/events';

/** A file as the run last knew it: its text (null: it did not exist) and that text's hash. */
export interface SeenFile {
  text: string | null;
  hash: string | null;
}

/**
 * What the run last read or wrote of each path, fed by its workspace (`trackedWorkspace`). The
 * first read of a path is what the run's work on it starts from, and each write of the run moves
 * it on; a later read leaves it as it is, so a change made under the run (the user's) is still
 * seen as one when the run comes to write the file.
 */
export class SeenFiles {
  private readonly files = new Map<string, SeenFile>();

  constructor(private readonly hash: HashFn) {}

  read(path: string, text: string | null): void {
    if (!this.files.has(path)) this.wrote(path, text);
  }

  wrote(path: string, text: string | null): void {
    this.files.set(path, { text, hash: text === null ? null : this.hash(text) });
  }

  of(path: string): SeenFile | undefined {
    return this.files.get(path);
  }
}

// The record of each run's workspace, found by the workspace its writers are handed.
const records = new WeakMap<WorkspacePort, SeenFiles>();

export function keepSeenFiles(ws: WorkspacePort, seen: SeenFiles): void {
  records.set(ws, seen);
}

export function seenFilesOf(ws: WorkspacePort): SeenFiles | undefined {
  return records.get(ws);
}

/** A text's lines, each with its line ending, so that joining them gives the text back byte for byte. */
const linesOf = (text: string): string[] => (text === '' ? [] : text.split(/(?<=\n)/));

export type LineMerge = { clean: true; text: string } | { clean: false; conflicts: UserEditConflict[] };

/** One change of a side: base's lines [from, to) replaced by `lines`. */
interface Hunk {
  from: number;
  to: number;
  lines: string[];
  side: 'yours' | 'run';
}

function hunksOf(base: string[], side: string[], name: Hunk['side']): Hunk[] {
  const hunks: Hunk[] = [];
  let at = 0;
  let open: Hunk | undefined;
  for (const part of diffArrays(base, side)) {
    if (!part.added && !part.removed) {
      if (open) hunks.push(open);
      open = undefined;
      at += part.value.length;
      continue;
    }
    open ??= { from: at, to: at, lines: [], side: name };
    if (part.added) open.lines.push(...part.value);
    else open.to = at += part.value.length;
  }
  if (open) hunks.push(open);
  return hunks;
}

/** Base's lines [from, to) with one side's hunks in that stretch applied. */
function applied(base: string[], from: number, to: number, hunks: readonly Hunk[]): string[] {
  const out: string[] = [];
  let at = from;
  for (const h of hunks) {
    out.push(...base.slice(at, h.from), ...h.lines);
    at = h.to;
  }
  out.push(...base.slice(at, to));
  return out;
}

const same = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((l, i) => l === b[i]);

/**
 * The three-way merge of two changes of `base`, line by line (diff3): clean when they change
 * different lines, or the same lines the same way. Changes that touch (one ends on the line
 * where the other starts, or both insert at the same place) count as overlapping, as in git.
 */
export function mergeLines(base: string, yours: string, run: string): LineMerge {
  const o = linesOf(base);
  const all = [...hunksOf(o, linesOf(yours), 'yours'), ...hunksOf(o, linesOf(run), 'run')].sort((a, b) => a.from - b.from || a.to - b.to);
  const merged: string[] = [];
  const conflicts: UserEditConflict[] = [];
  let at = 0;
  for (let i = 0; i < all.length;) {
    const first = all[i]!;
    const group = [first];
    let to = first.to;
    for (i++; i < all.length && all[i]!.from <= to; i++) {
      group.push(all[i]!);
      to = Math.max(to, all[i]!.to);
    }
    const from = first.from;
    merged.push(...o.slice(at, from));
    const mine = applied(
      o,
      from,
      to,
      group.filter((h) => h.side === 'yours'),
    );
    const theirs = applied(
      o,
      from,
      to,
      group.filter((h) => h.side === 'run'),
    );
    const both = group.some((h) => h.side === 'yours') && group.some((h) => h.side === 'run');
    if (!both) merged.push(...(group[0]!.side === 'yours' ? mine : theirs));
    else if (same(mine, theirs)) merged.push(...mine);
    else conflicts.push({ base: o.slice(from, to).join(''), yours: mine.join(''), run: theirs.join('') });
    at = to;
  }
  merged.push(...o.slice(at));
  return conflicts.length ? { clean: false, conflicts } : { clean: true, text: merged.join('') };
}

export interface RunWrite {
  path: string;
  /** What the run writes; null deletes the file (a repair putting back a file it created). */
  content: string | null;
  by: UserEditWriter;
  attempt: number;
  /** What the writer's change was computed from, when it knows better than the record (an op's read). */
  base?: string | null;
}

/** How a write over a file the user may have changed went: what is on disk now, or kept (not written). */
export type RunWriteResult = { kept: false; content: string | null } | { kept: true };

/**
 * Writes a file of the run unless the user changed it since the run last read or wrote it.
 * Then the user's change and the run's are merged when they merge cleanly (recorded as
 * `userEdit.merged`); otherwise nothing is written, the user's file stays as it is, and the
 * three versions are recorded (`userEdit.kept`). The caller stops the run on a kept file once
 * it has recorded what it did write (`stopOnKeptEdits`).
 */
export async function writeOverUserEdits(ctx: { deps: { workspace: WorkspacePort }; log: RunLog }, w: RunWrite): Promise<RunWriteResult> {
  const ws = ctx.deps.workspace;
  const seen = seenFilesOf(ws);
  const known = seen?.of(w.path);
  const disk = await ws.readFile(w.path);
  const base = w.base !== undefined ? w.base : known ? known.text : disk;
  if (disk === w.content) {
    seen?.wrote(w.path, disk);
    return { kept: false, content: disk };
  }
  const put = async (content: string | null) => {
    if (content === null) await ws.deleteFile(w.path);
    else await ws.writeFile(w.path, content);
    return { kept: false as const, content };
  };
  if (disk === base) return put(w.content);
  const blob = (text: string | null) => (text === null ? Promise.resolve(null) : ctx.log.putBlob(text));
  const versions = {
    path: w.path,
    by: w.by,
    attempt: w.attempt,
    base: await blob(base),
    yours: await blob(disk),
    run: await blob(w.content),
  };
  const merge = base !== null && disk !== null && w.content !== null ? mergeLines(base, disk, w.content) : undefined;
  if (merge?.clean) {
    const done = await put(merge.text);
    await ctx.log.emit({ type: 'userEdit.merged', ...versions, merged: await ctx.log.putBlob(merge.text) });
    return done;
  }
  // A file made or removed on one side only has no lines to merge: it is all one conflict.
  const conflicts = merge?.conflicts ?? [{ base: base ?? '', yours: disk ?? '', run: w.content ?? '' }];
  await ctx.log.emit({ type: 'userEdit.kept', ...versions, conflicts });
  return { kept: true };
}

/** Ends the run when a write kept the user's file instead: the operator merges by hand. */
export function stopOnKeptEdits(kept: readonly string[]): void {
  if (kept.length) throw new RunStop({ kind: 'userEdited', files: [...kept] }, 'failed');
}
