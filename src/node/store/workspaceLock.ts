import { linkSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import * as path from 'node:path';
import { z } from 'zod';
import { UserInputError } from '../../core/errors';
import type { OwnerProbe } from '../../core/run/liveness';
import { ensureStateDir, STATE_DIR } from './fileRunStore';
import { pidAlive, thisHost } from './processAlive';

/** Who holds a workspace's lock: enough to name it, and to tell a live holder from a dead one. */
export interface LockHolder {
  pid: number;
  host: string;
  startedAt: string;
  /** What it is doing, for the message a second run gets ("ticket-runner run .tickets/BLOG-1.ticket.json"). */
  command: string;
}

export const LOCK_FILE = path.join(STATE_DIR, 'lock');

/** A second run on a locked workspace: the message names the holder. */
export class WorkspaceLockedError extends UserInputError {
  override readonly name = 'WorkspaceLockedError';
  constructor(readonly holder: LockHolder) {
    super(
      `another run holds the lock of this workspace: ${describeHolder(holder)}. Wait for it to end, or stop it${holder.host === thisHost() ? ` (kill ${holder.pid})` : ''}.`,
    );
  }
}

export function describeHolder(h: LockHolder): string {
  return `pid ${h.pid} on ${h.host}, started ${h.startedAt}, running "${h.command}"`;
}

/** The lock file as read: `command` may be missing or of any type in an old lock. */
const StoredHolder = z.object({ pid: z.number(), host: z.string(), startedAt: z.string(), command: z.unknown().optional() });

function readHolder(file: string): LockHolder | null {
  try {
    // Written by another ticket-runner process, perhaps an older one: what does not fit is no holder.
    const h = StoredHolder.safeParse(JSON.parse(readFileSync(file, 'utf8')));
    if (!h.success) return null;
    const { command } = h.data;
    return {
      ...h.data,
      command: typeof command === 'string' ? command : command === undefined || command === null ? '' : JSON.stringify(command),
    };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw err;
    return null;
  }
}

const same = (a: LockHolder | null, b: LockHolder | null) =>
  a !== null && b !== null && a.pid === b.pid && a.host === b.host && a.startedAt === b.startedAt;

export interface WorkspaceLock {
  readonly holder: LockHolder;
  /** Removes the lock if it is still this one's; safe to call twice. */
  release(): void;
}

/**
 * Takes the workspace's lock, so that two runs never write the same workspace at once. The
 * lock file appears whole or not at all (written aside, then hard-linked into place, which
 * fails if it exists). A lock whose holder is a dead process of this machine is stale: it is
 * moved aside, checked to be the stale one (another process may have taken it over first),
 * and replaced, with a warning. A holder on another machine cannot be checked: it holds.
 */
export function acquireWorkspaceLock(root: string, command: string, warn: (message: string) => void): WorkspaceLock {
  const file = path.join(root, LOCK_FILE);
  ensureStateDir(root);
  const holder: LockHolder = { pid: process.pid, host: thisHost(), startedAt: new Date().toISOString(), command };
  const tmp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}`;
  writeFileSync(tmp, JSON.stringify(holder) + '\n', { flag: 'wx' });
  try {
    for (let tries = 0; tries < 5; tries++) {
      try {
        linkSync(tmp, file);
        return lockOf(file, holder);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      let current: LockHolder | null;
      try {
        current = readHolder(file);
      } catch {
        continue; // Released between the two calls: try again.
      }
      if (current && (current.host !== holder.host || pidAlive(current.pid))) throw new WorkspaceLockedError(current);
      const aside = `${file}.stale-${process.pid}`;
      try {
        renameSync(file, aside);
      } catch {
        continue; // Someone else moved it first.
      }
      const moved = readHolderOrNull(aside);
      if (current && !same(moved, current)) {
        // Between the read and the move another process took the stale lock over: put its lock back.
        try {
          linkSync(aside, file);
        } catch {
          // A third one holds it now; the next try reads it.
        }
        unlinkSync(aside);
        continue;
      }
      unlinkSync(aside);
      warn(current ? `took over a stale lock: ${describeHolder(current)}, and that process is gone` : 'took over an unreadable lock file');
    }
    const last = readHolderOrNull(file);
    if (last) throw new WorkspaceLockedError(last);
    throw new UserInputError(`cannot take the lock ${file}: remove it if no run is going on`);
  } finally {
    unlinkSync(tmp);
  }
}

function readHolderOrNull(file: string): LockHolder | null {
  try {
    return readHolder(file);
  } catch {
    return null;
  }
}

function lockOf(file: string, holder: LockHolder): WorkspaceLock {
  let held = true;
  const release = () => {
    if (!held) return;
    held = false;
    process.removeListener('exit', release);
    // Never remove a lock that is not ours (a takeover after this process was thought dead).
    if (same(readHolderOrNull(file), holder)) unlinkSync(file);
  };
  process.on('exit', release);
  return { holder, release };
}

/** Who holds the workspace's lock now, if anyone. */
export function lockHolder(root: string): LockHolder | null {
  return readHolderOrNull(path.join(root, LOCK_FILE));
}

/**
 * Whether a run's owner is alive, for `displayStatus`: every run holds the workspace's lock
 * while it goes, so its owner must be the lock's live holder. (A pid alone is not enough:
 * the OS reuses pids.) A holder on another machine cannot be checked, and counts as alive.
 */
export function ownerProbe(root: string): OwnerProbe {
  const holder = lockHolder(root);
  const live = holder !== null && (holder.host !== thisHost() || pidAlive(holder.pid));
  return (owner) => live && (owner === undefined || (owner.pid === holder.pid && owner.host === holder.host));
}
