import type { CliCommand } from './command';

/** `ticket-runner --help`: a line per command, from the command table. */
export function mainHelp(commands: readonly CliCommand[]): string {
  return `ticket-runner: take a ticket to verified code, headless.

Usage: ticket-runner <command> [options]

Commands:
${commands.map((c) => `  ${c.synopsis.padEnd(35)}${c.summary}`).join('\n')}

Common options:
  --workspace DIR   the workspace folder (default: the current folder)
  --json            machine-readable output on stdout
  -h, --help        help for a command

Exit codes: 0 passed, 1 failed, 2 needs the operator, 3 error, 130 cancelled (SIGINT),
143 stopped by SIGTERM. Either signal ends the run cleanly: its log records the cancel.`;
}
