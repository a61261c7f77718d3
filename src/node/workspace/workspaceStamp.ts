import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { SKIPPED } from './treeSkips';

/**
 * A stamp of the workspace's files as the side-effect guard sees them (installed packages,
 * version control and the run store left out, as there), taken from each entry's inode, size,
 * mtime and ctime: two equal stamps mean no file or folder was written, created, deleted,
 * renamed or chmod-ed in between. The ctime is what makes that hold against code that hides a
 * write: any write, chmod or utimes sets it to the time of day, and no unprivileged process can
 * set it back, so a file changed and put back as it was (content and mtime alike) still shows.
 *
 * Only a write within the same tick of the file system's clock as the stamp (a few ms) could
 * pass unseen; a caller takes the stamp before it starts the processes that could write.
 */
export async function workspaceStamp(root: string): Promise<string> {
  const hash = createHash('sha256');
  const see = async (abs: string, rel: string): Promise<void> => {
    const st = await fs.lstat(abs, { bigint: true });
    hash.update(`${rel}\0${st.mode}\0${st.ino}\0${st.size}\0${st.mtimeNs}\0${st.ctimeNs}\n`);
    if (!st.isDirectory()) return;
    const names = (await fs.readdir(abs)).sort();
    for (const name of names) if (!SKIPPED.has(name)) await see(path.join(abs, name), rel ? `${rel}/${name}` : name);
  };
  await see(root, '');
  return hash.digest('hex');
}
