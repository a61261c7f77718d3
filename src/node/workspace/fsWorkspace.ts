import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { PathError } from '../../core/errors';
import { normalizeRelPath } from '../../core/schema/paths';
import type { WorkspacePort } from '../../core/ports/workspace';
import { isInside } from '../workspacePaths';

const TEMP_SUFFIX = '.ticket-runner.tmp';

/** The temp file a write of `base` goes through: hidden, beside it, with 24 random hex digits. */
const tempNameFor = (base: string): string => `.${base}.${randomBytes(12).toString('hex')}${TEMP_SUFFIX}`;

/** Whether `name` is a temp file `tempNameFor(base)` could have made. */
function isTempNameOf(name: string, base: string): boolean {
  const head = `.${base}.`;
  if (!name.startsWith(head) || !name.endsWith(TEMP_SUFFIX)) return false;
  return /^[0-9a-f]{24}$/.test(name.slice(head.length, name.length - TEMP_SUFFIX.length));
}

/**
 * The workspace on disk. The core already normalizes paths; this adapter checks again
 * against the real filesystem, so a symlink inside the workspace cannot lead a write out.
 */
export class FsWorkspace implements WorkspacePort {
  readonly root: string;

  constructor(root: string) {
    this.root = path.resolve(root);
  }

  /** The absolute path of a workspace-relative one, refusing anything that escapes. */
  async abs(rel: string): Promise<string> {
    const target = path.join(this.root, normalizeRelPath(rel));
    const realRoot = await fs.realpath(this.root);
    // Walk up to the nearest existing ancestor: a file being created has no realpath yet.
    let probe = target;
    for (;;) {
      try {
        const real = await fs.realpath(probe);
        if (!isInside(realRoot, real)) {
          throw new PathError(`"${rel}" resolves outside the workspace (through a symbolic link)`);
        }
        return target;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
        const parent = path.dirname(probe);
        if (parent === probe) return target;
        probe = parent;
      }
    }
  }

  async readFile(rel: string): Promise<string | null> {
    try {
      return await fs.readFile(await this.abs(rel), 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'EISDIR') return null;
      throw err;
    }
  }

  async writeFile(rel: string, content: string): Promise<void> {
    const file = await this.abs(rel);
    await fs.mkdir(path.dirname(file), { recursive: true });
    // Write then rename, so a crash never leaves a half-written source file. The temp file has
    // a random name and is created with O_EXCL: a file or symbolic link planted where it will
    // be (by code a test ran) is never followed nor reused.
    const tmp = path.join(path.dirname(file), tempNameFor(path.basename(file)));
    const mode = await fs.stat(file).then(
      (s) => s.mode & 0o777,
      () => 0o666,
    );
    const handle = await fs.open(tmp, 'wx', mode);
    try {
      await handle.writeFile(content, 'utf8');
      await handle.close();
      await fs.rename(tmp, file);
    } catch (err) {
      await handle.close().catch(() => undefined);
      await fs.rm(tmp, { force: true });
      throw err;
    }
  }

  /**
   * A write that a kill cut short between its temp file and the rename leaves the temp file
   * beside `rel` (the file itself is whole, old or new). Only names this adapter makes match.
   */
  async removeInterruptedWrite(rel: string): Promise<void> {
    const file = await this.abs(rel);
    const names = await fs.readdir(path.dirname(file)).catch(() => [] as string[]);
    for (const name of names)
      if (isTempNameOf(name, path.basename(file))) await fs.rm(path.join(path.dirname(file), name), { force: true });
  }

  async deleteFile(rel: string): Promise<void> {
    await fs.rm(await this.abs(rel), { force: true });
  }

  async exists(rel: string): Promise<boolean> {
    try {
      await fs.access(await this.abs(rel));
      return true;
    } catch {
      return false;
    }
  }

  async fileMode(rel: string): Promise<number | null> {
    try {
      return (await fs.stat(await this.abs(rel))).mode & 0o7777;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }

  async setFileMode(rel: string, mode: number): Promise<void> {
    await fs.chmod(await this.abs(rel), mode);
  }

  async removeEmptyFolder(rel: string): Promise<boolean> {
    const dir = await this.abs(rel);
    if (dir === this.root) return false;
    try {
      await fs.rmdir(dir);
      return true;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTEMPTY' || code === 'EEXIST' || code === 'ENOTDIR') return false;
      throw err;
    }
  }

  async listFiles(dir: string): Promise<string[]> {
    const base = dir === '' || dir === '.' ? this.root : await this.abs(dir);
    try {
      const entries = await fs.readdir(base, { recursive: true, withFileTypes: true });
      return entries
        .filter((e) => e.isFile())
        .map((e) => path.relative(this.root, path.join(e.parentPath, e.name)).split(path.sep).join('/'))
        .sort();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
  }
}
