import type { BigIntStats } from 'node:fs';

/**
 * What identifies one version of an entry without reading it. The change time is the one a process
 * cannot set back (any write, chmod or utimes sets it to the time of day), so a file rewritten and
 * put back with its size and modification time still shows; the inode catches a file replaced by a
 * rename, and the mode a file turned into a link or a folder. Times in nanoseconds, as the file
 * system keeps them: a float of milliseconds would round them.
 */
export type Stamp = string;

/**
 * A folder is stamped only as one ('dir') unless `folderTimes`: a copy brought back to its source
 * walks into every folder anyway, and a folder's times change with each entry made or removed in
 * it, which would have the copy take the whole folder again. The workspace stamp keeps them: a file
 * made and removed again between two stamps still shows.
 */
export function stampOf(st: BigIntStats, o: { folderTimes?: boolean } = {}): Stamp {
  if (st.isDirectory() && !o.folderTimes) return 'dir';
  return `${st.mode}:${st.size}:${st.ino}:${st.mtimeNs}:${st.ctimeNs}`;
}
