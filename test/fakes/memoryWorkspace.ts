import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { WorkspacePort } from '../../src/core/ports/workspace';
import { candidateOf } from './candidateKey';

/**
 * A fake of the workspace (stands for src/node/workspace/fsWorkspace.ts): a Map of the files of a
 * fixture as the recorder copied it, changed only in memory. Its candidate (the files that differ
 * from the start) is what the recorded answers are looked up by.
 */

export const FIXTURES = path.join(__dirname, '..', 'fixtures');

/** A fixture's files as a copy of it holds them (test/support/tempWorkspace.ts: no node_modules). */
export function fixtureFiles(fixture: string): Map<string, string> {
  const root = path.join(FIXTURES, fixture);
  const files = new Map<string, string>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === 'node_modules') continue;
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile()) files.set(path.relative(root, full).split(path.sep).join('/'), readFileSync(full, 'utf8'));
    }
  };
  walk(root);
  return files;
}

export class MemoryWorkspace implements WorkspacePort {
  readonly files: Map<string, string>;
  private readonly modes = new Map<string, number>();

  constructor(private readonly start: ReadonlyMap<string, string>) {
    this.files = new Map(start);
  }

  static ofFixture(fixture: string): MemoryWorkspace {
    return new MemoryWorkspace(fixtureFiles(fixture));
  }

  /** The files that differ from the start: what the recorded answers depend on. */
  candidate(): Map<string, string | null> {
    const now = new Map<string, string | null>(this.files);
    for (const p of this.start.keys()) if (!now.has(p)) now.set(p, null);
    return candidateOf(this.start, now);
  }

  readFile(p: string): Promise<string | null> {
    return Promise.resolve(this.files.get(p) ?? null);
  }
  writeFile(p: string, content: string): Promise<void> {
    this.files.set(p, content);
    return Promise.resolve();
  }
  deleteFile(p: string): Promise<void> {
    this.files.delete(p);
    this.modes.delete(p);
    return Promise.resolve();
  }
  exists(p: string): Promise<boolean> {
    return Promise.resolve(this.files.has(p) || this.isFolder(p));
  }
  listFiles(dir: string): Promise<string[]> {
    const prefix = dir === '' || dir === '.' ? '' : `${dir.replace(/\/$/, '')}/`;
    return Promise.resolve([...this.files.keys()].filter((p) => p.startsWith(prefix)).sort());
  }
  fileMode(p: string): Promise<number | null> {
    return Promise.resolve(this.files.has(p) ? (this.modes.get(p) ?? 0o644) : null);
  }
  setFileMode(p: string, mode: number): Promise<void> {
    this.modes.set(p, mode);
    return Promise.resolve();
  }
  /** Folders exist only through their files here: one with none is already gone, one with some is not empty. */
  removeEmptyFolder(_p: string): Promise<boolean> {
    return Promise.resolve(false);
  }

  private isFolder(p: string): boolean {
    const prefix = `${p.replace(/\/$/, '')}/`;
    return [...this.files.keys()].some((f) => f.startsWith(prefix));
  }
}
