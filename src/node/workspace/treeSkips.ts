import { STATE_DIR } from '../store/fileRunStore';

/**
 * What every walk, stamp and copy of the workspace tree leaves out: installed packages (looked at
 * by their own guards), git's store, and the run's own records. One list, so the walks agree on
 * what "the tree" is.
 */
export const SKIPPED: ReadonlySet<string> = new Set(['node_modules', '.git', STATE_DIR]);

/**
 * What of the workspace's `.git` is looked at all the same: git runs what they name (a hook at the
 * next commit, `core.fsmonitor` at the next `git status`) outside any sandbox.
 */
export const GIT_WATCHED: readonly string[] = ['hooks', 'config'];

/**
 * Top-level names a copy of the workspace owns rather than mirrors: its node_modules, a link (or a
 * folder of links) to the workspace's packages, made and checked by the copy's owner.
 */
export const OWNED: ReadonlySet<string> = new Set(['node_modules']);
