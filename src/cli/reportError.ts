import * as path from 'node:path';
import { TicketRunnerError, UserInputError, errorMessage } from '../core/errors';
import type { Io } from './command';
import { writeCrashReport } from './crashReport';
import { EXIT } from './exitCodes';

const oneLine = (s: string): string => s.replace(/\s*\n\s*/g, ' ').trim();

/** The workspace an argv names, best effort: where a crash report goes. */
function workspaceIn(argv: readonly string[]): string {
  const i = argv.findIndex((a) => a === '--workspace' || a.startsWith('--workspace='));
  const value = i < 0 ? undefined : argv[i]!.includes('=') ? argv[i]!.slice('--workspace='.length) : argv[i + 1];
  return path.resolve(value ?? process.cwd());
}

/**
 * Every error is one line on stderr and exit 3. User errors say what to fix; an error the
 * code did not expect is a bug: its stack goes to a crash report, never to the terminal.
 */
export function reportError(err: unknown, io: Io, argv: readonly string[]): number {
  const code = typeof err === 'object' && err !== null ? (err as { code?: unknown }).code : undefined;
  if (err instanceof UserInputError || (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS'))) {
    io.err(`ticket-runner: ${oneLine(errorMessage(err))}`);
  } else if (err instanceof TicketRunnerError) {
    io.err(`ticket-runner: ${err.name}: ${oneLine(err.message)}`);
  } else {
    const file = writeCrashReport(workspaceIn(argv), err, argv);
    io.err(
      `ticket-runner: unexpected error: ${oneLine(errorMessage(err)) || 'unknown'}. ${file ? `A crash report with the details is at ${file}` : 'No crash report could be written'}; please report it.`,
    );
  }
  return EXIT.error;
}
