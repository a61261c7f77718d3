import { createHash } from 'node:crypto';
import { lstat } from 'node:fs/promises';
import { SKIPPED } from './treeSkips';
import { stampOf, walkTree } from './treeWalk';

/**
 * A stamp of the workspace's files as the side-effect guard sees them (installed packages,
 * version control and the run store left out, as there), from each entry's stamp (treeWalk.ts),
 * folders' times included: two equal stamps mean no file or folder was written, created, deleted,
 * renamed or chmod-ed in between, even one changed and put back as it was (content and mtime
 * alike), since no unprivileged process can set a change time back.
 *
 * Only a write within the same tick of the file system's clock as the stamp (a few ms) could
 * pass unseen; a caller takes the stamp before it starts the processes that could write.
 */
export async function workspaceStamp(root: string): Promise<string> {
  const hash = createHash('sha256');
  // The root's own times: a top-level file made and removed again changes only them.
  hash.update(`\0${stampOf(await lstat(root, { bigint: true }), { folderTimes: true })}\n`);
  const { entries } = await walkTree(root, { skip: SKIPPED });
  for (const [rel, st] of [...entries].sort(([a], [b]) => (a < b ? -1 : 1))) hash.update(`${rel}\0${stampOf(st, { folderTimes: true })}\n`);
  return hash.digest('hex');
}
