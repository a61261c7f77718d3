import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { ensureStateDir } from '../node/store/fileRunStore';

/**
 * Writes what a bug needs to be fixed (the error's stack, the command, the versions) to a
 * file, so the terminal gets one line and the report survives. It goes under the workspace's
 * `.ticket-runner/`, or the system's temp folder when that cannot be written.
 */
export function writeCrashReport(workspace: string, err: unknown, argv: readonly string[]): string | undefined {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const body = [
    `ticket-runner crash report, ${new Date().toISOString()}`,
    `command: ticket-runner ${argv.join(' ')}`,
    `node ${process.version} on ${process.platform} ${process.arch}`,
    '',
    err instanceof Error ? (err.stack ?? `${err.name}: ${err.message}`) : String(err),
    '',
  ].join('\n');
  for (const place of [() => ensureStateDir(workspace), () => tmpdir()]) {
    try {
      const dir = place();
      const file = path.join(dir, `crash-${stamp}-${process.pid}.txt`);
      writeFileSync(file, body, { flag: 'wx' });
      return file;
    } catch {
      // Try the next place.
    }
  }
  return undefined;
}
