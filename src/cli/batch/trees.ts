import { cpSync, existsSync, lstatSync, mkdirSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import * as path from 'node:path';
import { UserInputError } from '../../core/errors';
import { STATE_DIR } from '../../node/store/fileRunStore';
import { commitIdentity, git, gitOrNull } from '../../node/git/gitCommand';

/**
 * Where each ticket of a batch runs: a git worktree from the workspace's HEAD, or a copy of the
 * workspace when it is not in git. Never two tickets in one tree: each sees only its own writes.
 */
export interface TicketTree {
  /** The tree's root (the worktree, or the copy). */
  root: string;
  /** The workspace inside it: the same folder as the batch's workspace, relative to the repository. */
  workspace: string;
}

/** The branch a passed ticket's change is kept on. */
export const ticketBranch = (ticketId: string): string => `ticket/${ticketId}`;

/** Ticket ids go into paths and branch names: only the characters both take. */
function checkId(ticketId: string): void {
  if (!/^[A-Za-z0-9][\w.-]*$/.test(ticketId) || ticketId.includes('..')) {
    throw new UserInputError(
      `ticket file name "${ticketId}" cannot name a worktree or a branch: use letters, digits, ".", "_" and "-" (such as BLOG-5.ticket.json)`,
    );
  }
}

export interface TreeMaker {
  mode: 'worktree' | 'copy';
  /** The commit every worktree starts from (null for copies). */
  commit: string | null;
  create(ticketId: string): TicketTree;
  /** A passed ticket: its change committed on `ticket/<id>`, the tree removed (and the branch too with keepBranch false). */
  keepAsBranch(tree: TicketTree, ticketId: string, message: string, keepBranch: boolean): string | null;
  remove(tree: TicketTree): void;
}

/**
 * Checks the workspace and returns how to make its tickets' trees. In git, the tree must be
 * clean (a worktree starts from HEAD: uncommitted changes would not be in it, so the tickets
 * would run on other code than the operator sees) and no `ticket/<id>` branch may exist yet.
 */
export function treeMaker(ws: string, treesDir: string, ticketIds: readonly string[]): TreeMaker {
  for (const id of ticketIds) checkId(id);
  const top = gitOrNull(ws, ['rev-parse', '--show-toplevel']);
  const linkModules = (root: string) => {
    // node_modules is not in git and too big to copy: each tree links the workspace's own.
    const mine = path.join(ws, 'node_modules');
    const theirs = path.join(root, 'node_modules');
    if (existsSync(mine) && !existsSync(theirs)) symlinkSync(mine, theirs, 'dir');
  };
  if (top === null) {
    return {
      mode: 'copy',
      commit: null,
      create(id) {
        const root = path.join(treesDir, id);
        // Entry by entry: the trees live inside the workspace's own store, which is not copied.
        mkdirSync(root, { recursive: true });
        for (const name of readdirSync(ws))
          if (name !== STATE_DIR && name !== 'node_modules')
            cpSync(path.join(ws, name), path.join(root, name), { recursive: true, verbatimSymlinks: true });
        linkModules(root);
        return { root, workspace: root };
      },
      keepAsBranch: (tree) => (rmSync(tree.root, { recursive: true, force: true }), null),
      remove: (tree) => rmSync(tree.root, { recursive: true, force: true }),
    };
  }
  const commit = gitOrNull(ws, ['rev-parse', '--verify', 'HEAD^{commit}']);
  if (!commit) throw new UserInputError(`${ws} is in a git repository with no commit yet: commit the project (worktrees start from HEAD)`);
  const dirty = git(ws, ['status', '--porcelain', '--untracked-files=all', '--', '.', `:(exclude)${STATE_DIR}`])
    .split('\n')
    .filter(Boolean);
  if (dirty.length) {
    throw new UserInputError(
      `the workspace has ${dirty.length} uncommitted change(s) (${dirty
        .slice(0, 3)
        .map((l) => l.slice(3))
        .join(', ')}${dirty.length > 3 ? ', …' : ''}): commit or stash them, since each ticket runs in a worktree of HEAD`,
    );
  }
  for (const id of ticketIds) {
    if (gitOrNull(ws, ['rev-parse', '--verify', '--quiet', `refs/heads/${ticketBranch(id)}`])) {
      throw new UserInputError(
        `branch ${ticketBranch(id)} exists (from an earlier batch?): merge or delete it (git branch -D ${ticketBranch(id)}) before running the ticket again`,
      );
    }
  }
  const sub = path.relative(top, ws);
  const identity = commitIdentity(ws);
  const remove = (tree: TicketTree) => {
    gitOrNull(ws, ['worktree', 'remove', '--force', tree.root]);
    rmSync(tree.root, { recursive: true, force: true });
    gitOrNull(ws, ['worktree', 'prune']);
  };
  return {
    mode: 'worktree',
    commit,
    create(id) {
      const root = path.join(treesDir, id);
      mkdirSync(path.dirname(root), { recursive: true });
      git(ws, ['worktree', 'add', '--quiet', '--detach', root, commit]);
      const workspace = path.join(root, sub);
      linkModules(workspace);
      return { root, workspace };
    },
    keepAsBranch(tree, id, message, keepBranch) {
      const branch = ticketBranch(id);
      git(tree.root, ['checkout', '--quiet', '-b', branch]);
      // The run's own store and the linked node_modules are not the ticket's change (git refuses
      // to be told to exclude a path it already ignores, so only those it does not are named).
      const link = path.join(tree.workspace, 'node_modules');
      const own = [path.join(tree.workspace, STATE_DIR), ...(existsSync(link) && lstatSync(link).isSymbolicLink() ? [link] : [])];
      const exclude = own
        .map((p) => path.relative(tree.root, p))
        .filter((rel) => gitOrNull(tree.root, ['check-ignore', '-q', rel]) === null)
        .map((rel) => `:(exclude)${rel}`);
      git(tree.root, ['add', '--all', '--', '.', ...exclude]);
      git(tree.root, [...identity, 'commit', '--quiet', '--allow-empty', '--no-verify', '-m', message]);
      remove(tree);
      if (!keepBranch) git(ws, ['branch', '--quiet', '-D', branch]);
      return keepBranch ? branch : null;
    },
    remove,
  };
}
