import { UserInputError } from '../../core/errors';
import { commitIdentity, git } from '../git/gitCommand';

/** The branch a plan's passed tickets are committed on. */
export const planBranchName = (planId: string): string => `plan/${planId}`;

/** Where a plan's tickets are kept as they pass: a branch of the workspace's repository. */
export interface PlanBranch {
  name: string;
  /** Commits the files a passed ticket's run changed, and nothing else; returns the commit's short hash. */
  commit(files: readonly string[], message: string): string | null;
}

/**
 * Puts the workspace on the plan's branch, made from the commit it is on when the branch does
 * not exist yet. Changes not committed stay in the working tree, as `git switch` keeps them, and
 * are never committed by the plan: each commit takes only its ticket's files. Null outside git.
 */
export function openPlanBranch(ws: string, planId: string, say: (line: string) => void): PlanBranch | null {
  try {
    if (git(ws, ['rev-parse', '--is-inside-work-tree']) !== 'true') return null;
  } catch {
    return null;
  }
  const name = planBranchName(planId);
  const current = git(ws, ['rev-parse', '--abbrev-ref', 'HEAD']);
  if (current !== name) {
    const exists = git(ws, ['branch', '--list', name]) !== '';
    try {
      git(ws, exists ? ['switch', name] : ['switch', '-c', name]);
    } catch (err) {
      throw new UserInputError(
        `the plan's tickets are committed on the branch ${name}, and git could not switch to it (${(err as Error).message}): ` +
          'commit or stash your changes, or pass --no-commit to run the plan without commits',
      );
    }
    say(exists ? `on the plan's branch ${name} again` : `the plan's tickets are committed on a new branch, ${name}, made from ${current}`);
  }
  return {
    name,
    commit(files, message) {
      if (!files.length) return null;
      git(ws, ['add', '-A', '--', ...files]);
      // A path given to commit takes only those paths: whatever else is staged stays staged.
      // No hook runs: the ticket's checks are its verdict, as a batch's commits are.
      git(ws, [...commitIdentity(ws), 'commit', '--no-verify', '--quiet', '-m', message, '--', ...files]);
      return git(ws, ['rev-parse', '--short', 'HEAD']);
    },
  };
}

/** A ticket of a plan that passed, and the run that passed it. */
export interface PassedTicket {
  planId: string;
  ticketId: string;
  title: string;
  runId: string;
  /** The files of the ticket's scope that held changes not committed when its run began. */
  uncommitted: readonly string[];
}

/** Commits a passed ticket's files on the plan's branch, every host in the same words; says what it did, or nothing. */
export function keepOnBranch(branch: PlanBranch, files: readonly string[], t: PassedTicket): string | undefined {
  const sha = branch.commit(files, `${t.ticketId}: ${t.title}\n\nVerified by Ticket Runner, run ${t.runId} of the plan ${t.planId}.`);
  // The commit takes whole files: a change of the user's already in one when the run began goes with it, and is said.
  const theirs = t.uncommitted.filter((f) => files.includes(f));
  const note = theirs.length ? `, with the changes not committed in ${theirs.join(', ')} that were there before it ran` : '';
  return sha ? `${t.ticketId} is committed on ${branch.name} (${sha})${note}` : undefined;
}
