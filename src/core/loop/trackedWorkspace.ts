import type { HashFn } from '../ports/clock';
import type { WorkspacePort } from '../ports/workspace';
import type { RunLog } from '../run/runLog';
import { keepSeenFiles, SeenFiles } from '../stages/common/userEdits';

const parentOf = (p: string): string => p.slice(0, Math.max(0, p.lastIndexOf('/')));

/**
 * The workspace as a run writes it. Before the run first writes or deletes a path, what
 * rollback needs and the content does not say is recorded (`file.baselined`): the path's
 * permission bits and the folders the write creates. A write keeps an existing file's bits
 * (the adapter writes a new file and renames it over the old one, which would reset them).
 * Every read and write also feeds the run's record of what it last read or wrote of each path
 * (`SeenFiles`), which its writers check so as never to write over the user's change.
 */
export function trackedWorkspace(ws: WorkspacePort, log: RunLog, hash: HashFn): WorkspacePort {
  const seenFiles = new SeenFiles(hash);
  const seen = new Set<string>();
  for (const e of log.events) if (e.type === 'file.baselined') seen.add(e.path);
  const baseline = async (path: string): Promise<number | null> => {
    const mode = await ws.fileMode(path);
    if (seen.has(path)) return mode;
    seen.add(path);
    const createdFolders: string[] = [];
    if (mode === null) for (let dir = parentOf(path); dir && !(await ws.exists(dir)); dir = parentOf(dir)) createdFolders.push(dir);
    await log.emit({ type: 'file.baselined', path, mode, createdFolders });
    return mode;
  };
  const tracked: WorkspacePort = {
    async readFile(p) {
      const text = await ws.readFile(p);
      seenFiles.read(p, text);
      return text;
    },
    exists: (p) => ws.exists(p),
    listFiles: (d) => ws.listFiles(d),
    fileMode: (p) => ws.fileMode(p),
    setFileMode: (p, m) => ws.setFileMode(p, m),
    removeEmptyFolder: (p) => ws.removeEmptyFolder(p),
    ...(ws.removeInterruptedWrite ? { removeInterruptedWrite: (p: string) => ws.removeInterruptedWrite!(p) } : {}),
    async writeFile(path, content) {
      const mode = await baseline(path);
      await ws.writeFile(path, content);
      seenFiles.wrote(path, content);
      if (mode !== null && (await ws.fileMode(path)) !== mode) await ws.setFileMode(path, mode);
    },
    async deleteFile(path) {
      await baseline(path);
      await ws.deleteFile(path);
      seenFiles.wrote(path, null);
    },
  };
  keepSeenFiles(tracked, seenFiles);
  return tracked;
}
