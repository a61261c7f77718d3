import { readdirSync, readFileSync } from 'node:fs';

/**
 * A test command that starts a grandchild and never ends on its own. Both carry a token in
 * their command line: in the OS sandbox they live in a pid namespace of their own, so the pids
 * they could report are not the host's, and they are found on the host by that token instead.
 */
export const HANGING_TESTS = `const { spawn } = require('node:child_process');
const token = process.argv[2];
spawn('sleep', ['299.' + token], { stdio: 'ignore' });
require('node:fs').writeFileSync('started', token);
setInterval(() => {}, 1000);
`;

/** The host's pids of the processes whose command line holds `token`. */
export function pidsWith(token: string): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ').includes(token)) out.push(Number(entry));
    } catch {
      // Gone between the listing and the read.
    }
  }
  return out;
}

export const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
