import { execFileSync } from 'node:child_process';

/** git's answer in `cwd`, trimmed; a failure is an Error with git's own first line of why. */
export function git(cwd: string, args: string[]): string {
  try {
    return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 60_000 }).trim();
  } catch (err) {
    // git's own words say what went wrong; the command line alone does not.
    const stderr = (err as { stderr?: unknown }).stderr;
    const said = (typeof stderr === 'string' ? stderr : Buffer.isBuffer(stderr) ? stderr.toString('utf8') : '').trim().split('\n')[0];
    throw new Error(`git ${args[0]} failed${said ? `: ${said}` : ''}`, { cause: err });
  }
}

export function gitOrNull(cwd: string, args: string[]): string | null {
  try {
    return git(cwd, args);
  } catch {
    return null;
  }
}

/** The author a commit needs when the user has none configured: the commit is still made, and says who made it. */
export function commitIdentity(cwd: string): string[] {
  return gitOrNull(cwd, ['config', 'user.email']) ? [] : ['-c', 'user.name=ticket-runner', '-c', 'user.email=ticket-runner@localhost'];
}
