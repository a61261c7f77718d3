import type { BigIntStats } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import * as path from 'node:path';
import { GIT_WATCHED } from './treeSkips';

// The stamp lives apart, so that what only stamps (the baseline key's worker) loads nothing else.
export { stampOf, type Stamp } from './entryStamp';

/**
 * The one walk of a workspace tree, and the one stamp of its entries: the side-effect guard, the
 * kept copies (the tests' tree, rung 4's candidates) and the type-check's workspace stamp all see
 * the tree through these, so they agree on what is in it and on what counts as a change.
 */

/** One walk: every entry by path from the root (forward slashes), with its lstat. */
export interface TreeWalk {
  entries: Map<string, BigIntStats>;
  /**
   * What `skip` left out, not walked into, with its lstat: a guard watches the packages apart, and
   * may still look at a link or a file that has a skipped name.
   */
  skipped: Map<string, BigIntStats>;
}

export interface WalkOptions {
  /** Names left out at any depth (SKIPPED, for the workspace; none for a copy, where all it gained must show). */
  skip?: ReadonlySet<string>;
  /** Top-level names left out and not reported: what a copy owns (OWNED) is checked apart. */
  keep?: ReadonlySet<string>;
  /** Walks only what is below this folder. */
  under?: string;
  /** At the root, `.git`'s GIT_WATCHED entries are walked though `skip` leaves out the rest of it. */
  gitWatched?: boolean;
  /**
   * The tree may be written while it is walked (a process a test run left behind): an entry gone
   * before its lstat is left out, and a folder that cannot be read counts as empty. Without it the
   * walk fails, so that a copy is never brought to a tree half seen.
   */
  changing?: boolean;
}

export async function walkTree(root: string, o: WalkOptions = {}): Promise<TreeWalk> {
  const out: TreeWalk = { entries: new Map(), skipped: new Map() };
  const statOf = (rel: string): Promise<BigIntStats | undefined> => {
    const st = lstat(path.join(root, rel), { bigint: true });
    return o.changing ? st.catch(() => undefined) : st;
  };
  const walk = async (rel: string, only?: readonly string[]): Promise<void> => {
    const listed = readdir(path.join(root, rel), { withFileTypes: true });
    const names = (await (o.changing ? listed.catch(() => []) : listed))
      .map((e) => e.name)
      .filter((name) => !(rel === '' && o.keep?.has(name)) && (!only || only.includes(name)));
    // A folder's entries are stamped together: a walk of a large tree waits on the disk, not on each call in turn.
    const stamped = await Promise.all(
      names.map(async (name) => {
        const child = rel ? `${rel}/${name}` : name;
        return [name, child, await statOf(child)] as const;
      }),
    );
    const below: Promise<void>[] = [];
    for (const [name, child, st] of stamped) {
      if (!st) continue;
      if (o.skip?.has(name)) {
        out.skipped.set(child, st);
        if (o.gitWatched && rel === '' && name === '.git' && st.isDirectory()) below.push(walk(child, GIT_WATCHED));
      } else {
        out.entries.set(child, st);
        if (st.isDirectory()) below.push(walk(child));
      }
    }
    await Promise.all(below);
  };
  await walk(o.under ?? '');
  return out;
}
