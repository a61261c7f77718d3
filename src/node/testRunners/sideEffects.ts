import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';

/** Not watched: dependencies, version control, the run store (read-only to tests in the sandbox). */
const SKIPPED = new Set(['node_modules', '.git', '.ticket-runner']);
/** Larger files are watched but not kept: a change to one is reported and cannot be put back. */
const MAX_KEPT_BYTES = 4 * 1024 * 1024;

export interface SideEffect {
  path: string;
  change: 'created' | 'modified' | 'deleted';
  restored: boolean;
}

interface Seen {
  mtimeMs: number;
  size: number;
  /** A symbolic link's target, or the file's bytes (null when too large to keep). */
  link?: string;
  content: Buffer | null;
  mode: number;
}

/**
 * What a test run did to the workspace besides running: the tree is looked at before and after
 * each run (mtime and size, then the bytes of what differs), and every file the run created,
 * changed or deleted is put back as it was and reported. With the OS sandbox on, this catches
 * writes inside the workspace; without it, it is what keeps the rendered tests and the scope
 * as the run left them.
 */
export class SideEffectGuard {
  /** The workspace as last seen, with the bytes of every file kept to put it back. */
  private known = new Map<string, Seen>();

  constructor(private readonly root: string) {}

  /** Looks at the tree before a test run; reads only the files that changed since the last look. */
  async before(): Promise<void> {
    this.known = await this.look(this.known);
  }

  /** Looks again after the run, puts back what it changed, and says what that was. */
  async restore(): Promise<SideEffect[]> {
    const after = await this.look(new Map(), this.known);
    const effects: SideEffect[] = [];
    for (const [rel, now] of after) {
      const was = this.known.get(rel);
      if (!was) effects.push({ path: rel, change: 'created', restored: await this.remove(rel) });
      else if (!same(was, now)) effects.push({ path: rel, change: 'modified', restored: await this.put(rel, was) });
    }
    for (const [rel, was] of this.known) {
      if (!after.has(rel)) effects.push({ path: rel, change: 'deleted', restored: await this.put(rel, was) });
    }
    return effects.sort((a, b) => a.path.localeCompare(b.path));
  }

  /** The tree now; a file whose mtime and size match `reuse` keeps its kept bytes unread. */
  private async look(reuse: Map<string, Seen>, compare?: Map<string, Seen>): Promise<Map<string, Seen>> {
    const out = new Map<string, Seen>();
    const walk = async (dir: string): Promise<void> => {
      const entries = await fs.readdir(dir, { withFileTypes: true }).catch(() => []);
      for (const e of entries) {
        const abs = path.join(dir, e.name);
        if (e.isDirectory()) {
          if (!SKIPPED.has(e.name)) await walk(abs);
          continue;
        }
        const rel = path.relative(this.root, abs).split(path.sep).join('/');
        const st = await fs.lstat(abs).catch(() => undefined);
        if (!st) continue;
        const prior = reuse.get(rel) ?? compare?.get(rel);
        if (prior && prior.mtimeMs === st.mtimeMs && prior.size === st.size && prior.mode === st.mode) {
          out.set(rel, prior);
          continue;
        }
        if (st.isSymbolicLink()) {
          out.set(rel, { mtimeMs: st.mtimeMs, size: st.size, mode: st.mode, link: await fs.readlink(abs), content: null });
        } else if (st.isFile()) {
          const content = st.size <= MAX_KEPT_BYTES ? await fs.readFile(abs).catch(() => null) : null;
          out.set(rel, { mtimeMs: st.mtimeMs, size: st.size, mode: st.mode, content });
        }
      }
    };
    await walk(this.root);
    return out;
  }

  private async remove(rel: string): Promise<boolean> {
    return fs.rm(path.join(this.root, rel), { force: true }).then(() => true, () => false);
  }

  private async put(rel: string, was: Seen): Promise<boolean> {
    const abs = path.join(this.root, rel);
    try {
      await fs.mkdir(path.dirname(abs), { recursive: true });
      if (was.link !== undefined) {
        await fs.rm(abs, { force: true });
        await fs.symlink(was.link, abs);
        return true;
      }
      if (!was.content) return false;
      // A link planted in its place is replaced, never written through.
      await fs.rm(abs, { force: true });
      await fs.writeFile(abs, was.content, { mode: was.mode & 0o777, flag: 'wx' });
      return true;
    } catch {
      return false;
    }
  }
}

/** Same file: equal stat, or (a touch, a rewrite with the same bytes) equal content. */
function same(a: Seen, b: Seen): boolean {
  if (a === b) return true;
  if (a.link !== undefined || b.link !== undefined) return a.link === b.link;
  if ((a.mode & 0o777) !== (b.mode & 0o777)) return false;
  if (!a.content || !b.content) return a.size === b.size && a.mtimeMs === b.mtimeMs;
  return a.content.length === b.content.length && digest(a.content) === digest(b.content);
}

const digest = (b: Buffer) => createHash('sha256').update(b).digest('hex');
