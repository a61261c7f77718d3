import { parseArgs } from 'node:util';
import { UserInputError } from '../core/errors';
import { BATCH_SLOT_VAR } from './batch/linkMessages';
import { parentLink } from './batch/parentLink';
import { serveSlot } from './batch/slot';
import { COMMON_OPTIONS, type CliCommand, type Io, type OptionSpecs } from './command';
import { COMMANDS } from './commands';
import { EXIT } from './exitCodes';
import { mainHelp } from './mainHelp';
import { reportError } from './reportError';

export { EXIT } from './exitCodes';
export { reportError } from './reportError';

/**
 * Every command's flags in one table: a flag no command takes is an error of the parse, and one
 * another command owns is named as that command's (below).
 */
const ALL_OPTIONS: OptionSpecs = Object.assign(
  {},
  COMMON_OPTIONS,
  ...COMMANDS.flatMap((c): OptionSpecs[] => [c.options, c.ownOptions ?? {}]),
) as OptionSpecs;

type CommandFlags = Parameters<CliCommand['run']>[0]['flags'];

/** A flag given to `command` that only another command takes: the mix-up is said, naming the owner. */
function misplacedFlag(command: CliCommand, flags: Record<string, unknown>): string | undefined {
  for (const flag of Object.keys(flags)) {
    // A flag another command owns may still be one this command takes too (plan's --from, draft's).
    if (flag in command.options) continue;
    const owner = COMMANDS.find((c) => c !== command && c.ownOptions && flag in c.ownOptions);
    if (owner) return `--${flag} is an option of ${owner.name}, not of ${command.name}${command.misplacedHint?.[flag] ?? ''}`;
  }
  return undefined;
}

/** Parses the command line and hands it to its command; every command is a module of `commands/`. */
export async function main(argv: string[], io: Io, signal: AbortSignal): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '-h' || name === '--help' || name === 'help') {
    io.out(mainHelp(COMMANDS));
    return name ? EXIT.passed : EXIT.error;
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) throw new UserInputError(`unknown command "${name}". Commands: ${COMMANDS.map((c) => c.name).join(', ')} (see --help)`);
  if (command.ownParser) return command.run({ flags: {}, positionals: rest, argv, io, signal });
  const { values: flags, positionals } = parseArgs({ args: rest, options: ALL_OPTIONS, allowPositionals: true, strict: true });
  if (flags.help) {
    io.out(command.help);
    return EXIT.passed;
  }
  const misplaced = misplacedFlag(command, flags);
  if (misplaced) throw new UserInputError(misplaced);
  // The values of the whole table: each command reads them typed by its own (defineCommand).
  return command.run({ flags: flags as CommandFlags, positionals, argv, io, signal });
}

export async function runCli(argv: string[], io: Io, signal: AbortSignal): Promise<number> {
  try {
    return await main(argv, io, signal);
  } catch (err) {
    return reportError(err, io, argv);
  }
}

if (require.main === module) {
  const controller = new AbortController();
  const argv = process.argv.slice(2);
  const io: Io = { out: (s) => process.stdout.write(s + '\n'), err: (s) => process.stderr.write(s + '\n') };
  const codeFor = (sig: NodeJS.Signals) => (sig === 'SIGTERM' ? EXIT.terminated : EXIT.cancelled);
  // An error that escapes every handler (a callback, a stray promise) still ends in one line and a report.
  const fatal = (err: unknown) => {
    process.exitCode = reportError(err, io, argv);
    process.exit();
  };
  process.on('uncaughtException', fatal);
  process.on('unhandledRejection', fatal);
  if (process.env[BATCH_SLOT_VAR] === '1') serveSlot((ticketArgv, signal) => runCli(ticketArgv, io, signal), codeFor, io.err);
  else runOnce(argv, io, controller, codeFor);
}

function runOnce(argv: string[], io: Io, controller: AbortController, codeFor: (sig: NodeJS.Signals) => number): void {
  // SIGINT and SIGTERM stop the run cleanly: the abort kills the children's process groups and
  // the log ends with run.finished (cancelled). A second signal does not wait.
  let stoppedBy: NodeJS.Signals | undefined;
  const onSignal = (sig: NodeJS.Signals) => {
    if (stoppedBy) process.exit(codeFor(sig));
    stoppedBy = sig;
    process.stderr.write(`ticket-runner: ${sig}: cancelling (the run records it)…\n`);
    controller.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  // A ticket's run whose batch died (SIGKILL, a crash) does not carry on alone: it records a cancel.
  parentLink()?.onGone(() => {
    if (stoppedBy) return;
    stoppedBy = 'SIGINT';
    process.stderr.write('ticket-runner: the batch that started this run is gone: cancelling (the run records it)…\n');
    controller.abort();
  });
  void runCli(argv, io, controller.signal).then((code) => {
    process.exitCode = stoppedBy ? codeFor(stoppedBy) : code;
  });
}
