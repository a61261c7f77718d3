import { cp, lstat, readdir, readlink, rm, symlink } from 'node:fs/promises';
import * as path from 'node:path';
import { SKIPPED } from './treeSkips';

/**
 * The file-tree half of the run's scratch copies (the test commands' tree, testTree.ts, and
 * rung 4's candidates): walking a tree into stamps, copying it, and bringing a copy back to a
 * snapshot. Kept apart from their users so the safety argument (what a command run in a copy
 * can leave behind, and how it is found) reads in one place.
 */

/**
 * What identifies one version of an entry without reading it. The change time is the one a
 * process cannot set back (utimes sets it to now), so a candidate that rewrites a file and
 * restores its size and modification time is still seen; the inode catches a file replaced
 * by a rename, and the mode a file turned into a link or a folder.
 */
export type Stamp = string;

/** Relative path (forward slashes) to its stamp, for every file, link and folder of a tree. */
export type Snapshot = Map<string, Stamp>;

export const stampOf = (s: Awaited<ReturnType<typeof lstat>>): Stamp =>
  s.isDirectory() ? 'dir' : `${s.mode}:${s.size}:${s.ino}:${s.mtimeMs}:${s.ctimeMs}`;

/**
 * Walks a tree. `skip` leaves out entries by name at any depth (the workspace's own
 * node_modules, .git, the run store); `keep` leaves out top-level names the copy owns (its
 * node_modules link), which are checked apart.
 */
export async function snapshot(root: string, o: { skip?: ReadonlySet<string>; keep?: ReadonlySet<string> } = {}, under = ''): Promise<Snapshot> {
  const out: Snapshot = new Map();
  // A folder's entries are stamped together: a walk of a large tree waits on the disk, not on each call in turn.
  const walk = async (rel: string): Promise<void> => {
    const entries = await readdir(path.join(root, rel), { withFileTypes: true });
    const kept = entries.filter((e) => !(o.skip?.has(e.name) || (rel === '' && o.keep?.has(e.name))));
    const stamped = await Promise.all(
      kept.map(async (e) => {
        const child = rel ? `${rel}/${e.name}` : e.name;
        return [child, await lstat(path.join(root, child))] as const;
      }),
    );
    for (const [child, s] of stamped) out.set(child, stampOf(s));
    await Promise.all(stamped.filter(([, s]) => s.isDirectory()).map(([child]) => walk(child)));
  };
  await walk(under);
  return out;
}

/** Copies one entry (a file, a link as a link, a folder whole) from one root to the other, over what is there. */
async function copyEntry(from: string, to: string, rel: string): Promise<void> {
  const target = path.join(to, rel);
  await rm(target, { recursive: true, force: true });
  await cp(path.join(from, rel), target, { recursive: true, verbatimSymlinks: true, preserveTimestamps: true, filter: (src) => !SKIPPED.has(path.basename(src)) });
}

/** A whole copy of the workspace tree, without what SKIPPED names. */
export async function copyTree(from: string, to: string): Promise<void> {
  await cp(from, to, { recursive: true, verbatimSymlinks: true, filter: (src) => !SKIPPED.has(path.basename(src)) });
}

/**
 * Makes `copy` hold `source`'s tree again, touching only what differs: every entry of the copy
 * whose stamp is not the one recorded after the last sync (`copySnap`) is removed or copied
 * again, and so is every entry of the source that changed since `sourceSnap` (when
 * `sourceSnap` is given; a restore right after a call skips that walk). Returns the new
 * snapshots. Anything the copy gained (an extra file, a folder, a link, a nested node_modules)
 * is not in the snapshot, so it goes.
 */
export async function resync(
  source: string,
  copy: string,
  sourceSnap: Snapshot,
  copySnap: Snapshot,
  owned: ReadonlySet<string>,
  o: { walkSource: boolean },
): Promise<{ source: Snapshot; copy: Snapshot; touched: number }> {
  const nowSource = o.walkSource ? await snapshot(source, { skip: SKIPPED }) : sourceSnap;
  const nowCopy = await snapshot(copy, { keep: owned });
  const stale = new Set<string>();
  for (const [rel, stamp] of nowCopy) if (copySnap.get(rel) !== stamp) stale.add(rel);
  for (const rel of copySnap.keys()) if (!nowCopy.has(rel)) stale.add(rel);
  for (const [rel, stamp] of nowSource) if (sourceSnap.get(rel) !== stamp) stale.add(rel);
  for (const rel of sourceSnap.keys()) if (!nowSource.has(rel)) stale.add(rel);
  // Parents first, so a folder copied whole is not then copied again entry by entry.
  const ordered = [...stale].sort((a, b) => a.split('/').length - b.split('/').length || a.localeCompare(b));
  const done: string[] = [];
  for (const rel of ordered) {
    if (done.some((d) => rel.startsWith(`${d}/`))) continue;
    const inSource = nowSource.get(rel);
    if (inSource === undefined) await rm(path.join(copy, rel), { recursive: true, force: true });
    else if (inSource === 'dir' && nowCopy.get(rel) === 'dir' && copySnap.get(rel) === 'dir') continue;
    else await copyEntry(source, copy, rel);
    done.push(rel);
  }
  // The copy's new stamps: the walk's, with what was removed or copied stamped again.
  for (const rel of done) {
    for (const key of [...nowCopy.keys()]) if (key === rel || key.startsWith(`${rel}/`)) nowCopy.delete(key);
    const s = await lstat(path.join(copy, rel)).catch(() => undefined);
    if (!s) continue;
    nowCopy.set(rel, stampOf(s));
    if (s.isDirectory()) for (const [k, v] of await snapshot(copy, {}, rel)) nowCopy.set(k, v);
  }
  return { source: nowSource, copy: nowCopy, touched: done.length };
}

/** Links `name` in the copy to the source's own, unless it already is exactly that link. */
export async function ensureLink(source: string, copy: string, name: string): Promise<void> {
  const real = path.join(source, name);
  const link = path.join(copy, name);
  const here = await lstat(link).catch(() => undefined);
  if (here?.isSymbolicLink() && (await readlink(link)) === real) return;
  if (here) await rm(link, { recursive: true, force: true });
  if (await lstat(real).catch(() => undefined)) await symlink(real, link, 'dir');
}
