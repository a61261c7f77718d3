import { cp, lstat, readlink, rm, symlink } from 'node:fs/promises';
import * as path from 'node:path';
import { SKIPPED } from './treeSkips';
import { stampOf, walkTree, type Stamp, type WalkOptions } from './treeWalk';

/**
 * The file-tree half of the run's scratch copies (keptCopy.ts): stamping a tree, copying it, and
 * bringing a copy back to a snapshot. Kept apart from their users so the safety argument (what a
 * command run in a copy can leave behind, and how it is found) reads in one place.
 */

/** Relative path (forward slashes) to its stamp, for every file, link and folder of a tree. */
export type Snapshot = Map<string, Stamp>;

/** A tree's stamps, folders stamped as folders only (see `stampOf`). */
export async function snapshot(root: string, o: Pick<WalkOptions, 'skip' | 'keep' | 'gitWatched'> = {}, under = ''): Promise<Snapshot> {
  const { entries } = await walkTree(root, { ...o, under });
  return new Map([...entries].map(([rel, st]) => [rel, stampOf(st)]));
}

/** Copies one entry (a file, a link as a link, a folder whole) from one root to the other, over what is there. */
async function copyEntry(from: string, to: string, rel: string): Promise<void> {
  const target = path.join(to, rel);
  await rm(target, { recursive: true, force: true });
  await cp(path.join(from, rel), target, {
    recursive: true,
    verbatimSymlinks: true,
    preserveTimestamps: true,
    filter: (src) => !SKIPPED.has(path.basename(src)),
  });
}

/** A whole copy of the workspace tree, without what SKIPPED names. */
export async function copyTree(from: string, to: string): Promise<void> {
  await cp(from, to, { recursive: true, verbatimSymlinks: true, filter: (src) => !SKIPPED.has(path.basename(src)) });
}

/**
 * Makes `copy` hold `source`'s tree again, touching only what differs: every entry of the copy
 * whose stamp is not the one recorded after the last sync (`copySnap`) is removed or copied
 * again, and so is every entry of the source whose stamp in `nowSource` is not the one in
 * `sourceSnap` (the same map, when the source is not walked again). Returns the copy's new
 * snapshot. Anything the copy gained (an extra file, a folder, a link, a nested node_modules)
 * is not in the snapshot, so it goes.
 */
export async function resync(
  source: string,
  copy: string,
  stamps: { sourceSnap: Snapshot; nowSource: Snapshot; copySnap: Snapshot },
  owned: ReadonlySet<string>,
): Promise<Snapshot> {
  const { sourceSnap, nowSource, copySnap } = stamps;
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
    await restamp(copy, rel, nowCopy);
  }
  return nowCopy;
}

/** Stamps `rel` of `root` again in `snap`, with all that is in it; nothing, if it is gone. */
export async function restamp(root: string, rel: string, snap: Snapshot): Promise<void> {
  const s = await lstat(path.join(root, rel), { bigint: true }).catch(() => undefined);
  if (!s) return;
  snap.set(rel, stampOf(s));
  if (s.isDirectory()) for (const [k, v] of await snapshot(root, {}, rel)) snap.set(k, v);
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
