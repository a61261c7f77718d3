/**
 * How the node processes of a node:test or mocha run tell the runner who they are: the frozen
 * preload (testApisFrozen.ts) writes `<pid>\n` to the fd this variable names, a socket the
 * runner gave the command (sandbox/processGroup's `channel`), before any code under test loads.
 */
export const PID_CHANNEL_VAR = 'TICKET_RUNNER_PID_FD';
export const PID_CHANNEL_FD = 3;

/** The pids on the channel, one a line; anything else on it is no pid and is left out. */
export function recordedPids(text: string): number[] {
  return text
    .split('\n')
    .filter((line) => /^[1-9]\d{0,9}$/.test(line))
    .map(Number);
}
