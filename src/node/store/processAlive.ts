import { hostname } from 'node:os';

/** Whether a process of this machine is alive: signal 0 checks without sending anything. */
export function pidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists but belongs to another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** This machine's name, as locks and run logs record it. */
export const thisHost = (): string => hostname();
