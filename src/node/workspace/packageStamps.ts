import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readlinkSync, type BigIntStats } from 'node:fs';
import * as path from 'node:path';
import { isInside, realPathOr } from '../workspacePaths';
import { stampOf } from './entryStamp';

/** A folder whose files' stamps go into the baseline's key, and how it is walked. */
export interface StampedFolder {
  /** As the key names it (from the workspace: `node_modules`, `../node_modules`; or a label). */
  name: string;
  /** Where it is walked, links resolved. */
  real: string;
  /** Whether a link to a folder outside it (a package linked in) is walked too. */
  followLinks: boolean;
}

/**
 * The stamps of every entry below each folder, one digest per folder ('' when it is not there),
 * read synchronously: tens of thousands of lstat calls in a row cost a third of what as many
 * promises do, so this runs in a worker thread (fingerprintWorker.ts) and never on the editor's.
 *
 * A link is taken by its target; with `followLinks`, a link to a folder outside the walked one (a
 * package linked in, as npm's workspaces and `npm link` do) is walked too, by its own entries'
 * stamps, so that a change to the linked files shows; links inside that folder are taken by their
 * targets only. A folder counts by its entries, not its times: two copies whose packages are the
 * same links share the digest. Names in `skip` (the runners' caches) are left out at any depth.
 */
export function folderStampsSync(folders: readonly StampedFolder[], skip: readonly string[]): string[] {
  const skipped = new Set(skip);
  return folders.map((f) => {
    const hash = createHash('sha256');
    const linked = new Set<string>();
    if (!walk(f.real, '', hash, skipped, f.followLinks ? linked : undefined)) return '';
    for (const real of [...linked].sort()) {
      if (isInside(f.real, real)) continue;
      hash.update(`${real}\0`);
      walk(real, '', hash, skipped, undefined);
      hash.update('\n');
    }
    return `${f.name}\0${hash.digest('hex')}`;
  });
}

/** Walks `root` in name order into `hash`; false when `root` is no folder. */
function walk(root: string, rel: string, hash: ReturnType<typeof createHash>, skip: ReadonlySet<string>, linked?: Set<string>): boolean {
  let names: string[];
  try {
    names = readdirSync(path.join(root, rel)).sort();
  } catch {
    return false;
  }
  for (const name of names) {
    if (skip.has(name)) continue;
    const child = rel ? `${rel}/${name}` : name;
    const full = path.join(root, child);
    let st: BigIntStats;
    try {
      st = lstatSync(full, { bigint: true });
    } catch {
      hash.update(`${child}\0gone\n`); // Removed while walked: the key is then unlike any other.
      continue;
    }
    if (st.isSymbolicLink()) {
      let target = '';
      try {
        target = readlinkSync(full);
      } catch {
        // Gone since: the empty target stands for it.
      }
      hash.update(`${child}\0link:${target}\n`);
      if (linked) {
        const real = realPathOr(full);
        if (lstatSafe(real)?.isDirectory()) linked.add(real);
      }
      continue;
    }
    hash.update(`${child}\0${stampOf(st)}\n`);
    if (st.isDirectory()) walk(root, child, hash, skip, linked);
  }
  return true;
}

function lstatSafe(p: string): BigIntStats | undefined {
  try {
    return lstatSync(p, { bigint: true });
  } catch {
    return undefined;
  }
}
