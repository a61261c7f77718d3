import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { pidAlive, thisHost } from '../store/processAlive';
import { copyTree, restamp, resync, snapshot, type Snapshot } from './scratchTree';
import { OWNED, SKIPPED } from './treeSkips';

export interface KeptCopyOptions {
  /** The temp folder's prefix, which names whose copy it is. */
  prefix: string;
  /**
   * Makes what the copy owns (OWNED, and any nested node_modules) after each sync, and names
   * what it made below the top: stamped again, so that the next sync does not take it for
   * something a command left.
   */
  link: (dir: string) => Promise<readonly string[]>;
  /**
   * The source's stamps take in the git hooks and config too (GIT_WATCHED): the copy holds no
   * `.git`, but a command without the sandbox could reach the workspace's, and its owner asks
   * what changed there.
   */
  gitWatched?: boolean;
  /**
   * The copy is at the same path in each run on this workspace, while no other run holds it:
   * what is keyed by the paths of the files it compiled (tsx's cache, keptTransforms.ts) is found
   * again. A second run at once gets a path of its own.
   */
  samePath?: boolean;
}

/** How many runs at once on one workspace may have a copy at its usual path. */
const SAME_PATH_SLOTS = 3;
const OWNER = '.owner';

/**
 * A copy of the workspace kept for a run, in the temp folder, under the workspace's own folder
 * name (configs that name it still resolve): the tree without what SKIPPED names, and what the
 * copy owns made by its owner. Each `sync` brings it back to the workspace as it stands, copying
 * only what differs (scratchTree.ts): the files the run wrote since, and undoing whatever the
 * copy's last user left. The workspace is only ever read.
 */
export class KeptCopy {
  /** The copy's root. */
  readonly dir: string;
  private readonly base: string;
  private stamps: { source: Snapshot; copy: Snapshot } | undefined;

  constructor(
    readonly root: string,
    private readonly o: KeptCopyOptions,
  ) {
    this.base = (o.samePath ? claimUsual(o.prefix, root) : undefined) ?? mkdtempSync(path.join(tmpdir(), o.prefix));
    this.dir = path.join(this.base, path.basename(root));
  }

  /**
   * Makes the copy (the first time) or brings it back to the workspace, and gives the workspace's
   * stamps as copied. `walkSource: false` takes the workspace as unchanged since the last sync
   * (a copy put back right after its user is done) and walks only the copy.
   */
  async sync(o: { walkSource: boolean } = { walkSource: true }): Promise<Snapshot> {
    if (!this.stamps) {
      // The workspace's stamps before the copy: a file that changes while it is copied is seen as changed next time.
      const source = await this.sourceStamps();
      await copyTree(this.root, this.dir);
      await this.o.link(this.dir);
      this.stamps = { source, copy: await snapshot(this.dir, { keep: OWNED }) };
      return source;
    }
    const source = o.walkSource ? await this.sourceStamps() : this.stamps.source;
    const copy = await resync(
      this.root,
      this.dir,
      { sourceSnap: mirrored(this.stamps.source), nowSource: mirrored(source), copySnap: this.stamps.copy },
      OWNED,
    );
    // After the resync, which removes a nested node_modules a command changed (its stamp is not the recorded one).
    for (const rel of await this.o.link(this.dir)) await restamp(this.dir, rel, copy);
    this.stamps = { source, copy };
    return source;
  }

  /** Removes the copy. */
  async dispose(): Promise<void> {
    this.stamps = undefined;
    await rm(this.base, { recursive: true, force: true });
  }

  /** The workspace's stamps now, as a sync takes them. */
  sourceStamps(): Promise<Snapshot> {
    return snapshot(this.root, { skip: SKIPPED, gitWatched: this.o.gitWatched });
  }
}

/** What of the source's stamps the copy holds: not the git entries `gitWatched` adds. */
function mirrored(stamps: Snapshot): Snapshot {
  return new Map([...stamps].filter(([rel]) => !SKIPPED.has(rel.replace(/\/.*/, ''))));
}

/**
 * A folder at one of the workspace's usual paths, made for this process; undefined when each is
 * another live run's, or cannot be made. A folder whose owner is gone is moved aside and removed
 * later, off the caller's back: its copy may hold thousands of entries.
 */
function claimUsual(prefix: string, root: string): string | undefined {
  const id = createHash('sha256').update(path.resolve(root)).digest('hex').slice(0, 12);
  for (let slot = 0; slot < SAME_PATH_SLOTS; slot++) {
    const base = path.join(tmpdir(), `${prefix}${id}-${slot}`);
    for (let tries = 0; tries < 2; tries++) {
      try {
        // Made here, never found: a folder someone else made first is not used.
        mkdirSync(base, { mode: 0o700 });
        writeFileSync(path.join(base, OWNER), JSON.stringify({ pid: process.pid, host: thisHost() }));
        return base;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || !ownerGone(base)) break;
        try {
          const aside = mkdtempSync(path.join(tmpdir(), prefix));
          renameSync(base, path.join(aside, 'gone'));
          void rm(aside, { recursive: true, force: true });
        } catch {
          break;
        }
      }
    }
  }
  return undefined;
}

function ownerGone(base: string): boolean {
  try {
    const o = JSON.parse(readFileSync(path.join(base, OWNER), 'utf8')) as { pid?: unknown; host?: unknown };
    return o.host === thisHost() && typeof o.pid === 'number' && !pidAlive(o.pid);
  } catch {
    return false;
  }
}
