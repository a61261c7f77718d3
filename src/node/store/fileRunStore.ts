import { createHash } from 'node:crypto';
import { mkdirSync, promises as fs, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { decodeLog, encodeEvent } from '../../core/run/logCodec';
import type { RunEvent } from '../../core/schema/events';
import type { LoadedLog, RunStorePort } from '../../core/ports/runStore';
import { UserInputError } from '../../core/errors';

/** The workspace's Ticket Runner folder: runs, the lock, crash reports. */
export const STATE_DIR = '.ticket-runner';
export const RUNS_DIR = path.join(STATE_DIR, 'runs');

/**
 * Creates the workspace's `.ticket-runner/` with a `.gitignore` of `*`: runs, blobs, the lock and
 * crash reports are this machine's, never the repository's, whatever the project's own ignores say.
 */
export function ensureStateDir(workspaceRoot: string): string {
  const dir = path.join(workspaceRoot, STATE_DIR);
  mkdirSync(dir, { recursive: true });
  try {
    writeFileSync(path.join(dir, '.gitignore'), '*\n', { flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  return dir;
}

export function sha256(content: string): string {
  return createHash('sha256').update(content, 'utf8').digest('hex');
}

const RUN_ID = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/**
 * Runs on disk: `.ticket-runner/runs/<runId>/events.jsonl`, appended with O_APPEND and
 * never rewritten, and `blobs/<sha256>` beside it for the contents of every attempt.
 */
export class FileRunStore implements RunStorePort {
  readonly dir: string;
  private stateDirMade = false;

  constructor(private readonly workspaceRoot: string) {
    this.dir = path.join(workspaceRoot, RUNS_DIR);
  }

  private runDir(runId: string): string {
    if (!RUN_ID.test(runId)) throw new UserInputError(`"${runId}" is not a run id: see ticket-runner list for the runs of this workspace`);
    return path.join(this.dir, runId);
  }

  logPath(runId: string): string {
    return path.join(this.runDir(runId), 'events.jsonl');
  }

  async append(runId: string, event: RunEvent): Promise<void> {
    if (!this.stateDirMade) {
      ensureStateDir(this.workspaceRoot);
      this.stateDirMade = true;
    }
    await fs.mkdir(this.runDir(runId), { recursive: true });
    await fs.appendFile(this.logPath(runId), encodeEvent(event), { encoding: 'utf8', flag: 'a' });
  }

  async flush(runId: string): Promise<void> {
    const handle = await fs.open(this.logPath(runId), 'a');
    try {
      await handle.datasync();
    } finally {
      await handle.close();
    }
  }

  async load(runId: string): Promise<LoadedLog> {
    let text: string;
    try {
      text = await fs.readFile(this.logPath(runId), 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT')
        throw new UserInputError(`no run "${runId}" in ${this.dir}: see ticket-runner list for the runs of this workspace`);
      throw err;
    }
    return decodeLog(text, this.logPath(runId));
  }

  async putBlob(runId: string, content: string): Promise<string> {
    const hash = sha256(content);
    const file = path.join(this.runDir(runId), 'blobs', hash);
    await fs.mkdir(path.dirname(file), { recursive: true });
    // Content-addressed: an existing blob already holds these bytes.
    await fs.writeFile(file, content, { encoding: 'utf8', flag: 'wx' }).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'EEXIST') throw err;
    });
    return hash;
  }

  async getBlob(runId: string, hash: string): Promise<string> {
    if (!/^[0-9a-f]{64}$/.test(hash)) throw new Error(`"${hash}" is not a blob hash`);
    return fs.readFile(path.join(this.runDir(runId), 'blobs', hash), 'utf8');
  }

  async listRuns(): Promise<string[]> {
    try {
      const entries = await fs.readdir(this.dir, { withFileTypes: true });
      return entries
        .filter((e) => e.isDirectory() && RUN_ID.test(e.name))
        .map((e) => e.name)
        .sort();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
  }

  async deleteRun(runId: string): Promise<void> {
    await fs.rm(this.runDir(runId), { recursive: true, force: true });
  }
}
