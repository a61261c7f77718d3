/**
 * The workspace the run works in. Paths are workspace-relative with forward slashes;
 * the core checks containment before it calls any of these.
 */
export interface WorkspacePort {
  /** The file's text, or null when it does not exist. */
  readFile(path: string): Promise<string | null>;
  writeFile(path: string, content: string): Promise<void>;
  deleteFile(path: string): Promise<void>;
  exists(path: string): Promise<boolean>;
  /** Files under a folder (recursive), workspace-relative; [] when it does not exist. */
  listFiles(dir: string): Promise<string[]>;
  /** A file's permission bits (0o755), or null when it does not exist: rollback restores them. */
  fileMode(path: string): Promise<number | null>;
  setFileMode(path: string, mode: number): Promise<void>;
  /** Removes a folder if it is empty; false when it is not empty or not there. */
  removeEmptyFolder(path: string): Promise<boolean>;
  /**
   * Removes what a write of `path` that a crash cut short may have left beside it (an adapter
   * that writes through a temporary file leaves that file), never `path` itself. Resume and
   * rollback call it for every path the run wrote; an adapter that leaves nothing omits it.
   */
  removeInterruptedWrite?(path: string): Promise<void>;
}
