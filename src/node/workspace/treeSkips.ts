import { STATE_DIR } from '../store/fileRunStore';

/**
 * What every walk, stamp and copy of the workspace tree leaves out: installed packages (looked at
 * by their own guards), git's store, and the run's own records. One list, so the walks agree on
 * what "the tree" is.
 */
export const SKIPPED: ReadonlySet<string> = new Set(['node_modules', '.git', STATE_DIR]);
