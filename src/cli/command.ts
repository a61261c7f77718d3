/** Where a command writes: stdout for its result, stderr for progress, warnings and errors. */
export interface Io {
  out: (s: string) => void;
  err: (s: string) => void;
}

/** A flag as `parseArgs` takes it. */
export interface OptionSpec {
  type: 'string' | 'boolean';
  short?: string;
}
export type OptionSpecs = Readonly<Record<string, OptionSpec>>;

/** The values `parseArgs` gives for a table of flags. */
export type FlagsOf<O extends OptionSpecs> = { [K in keyof O]?: O[K]['type'] extends 'boolean' ? boolean : string };

/** What every command is called with. */
export interface CommandInput<F> {
  flags: F;
  positionals: string[];
  /** The whole command line: the lock names its holder with it, a crash report quotes it. */
  argv: readonly string[];
  io: Io;
  /** The command's cancel (SIGINT, SIGTERM, a batch that is gone). */
  signal: AbortSignal;
}

/**
 * One `ticket-runner` command: `main` finds it by name, prints its help, parses its flags and
 * calls `run`. Every command lives in `src/cli/commands/<name>.ts` and is listed in `COMMANDS`.
 */
export interface CliCommand<O extends OptionSpecs = OptionSpecs, W extends OptionSpecs = OptionSpecs> {
  name: string;
  /** Its line in the main help: the command with its arguments, and what it does. */
  synopsis: string;
  summary: string;
  /** What `ticket-runner <name> --help` prints. */
  help: string;
  /** The flags it reads (`--workspace`, `--json` and `--help` are every command's). */
  options: O;
  /** Flags no other command takes: another command given one says whose it is. */
  ownOptions?: W;
  /** What to add when this command is given another command's own flag (a likely mix-up). */
  misplacedHint?: Readonly<Record<string, string>>;
  /** Parses its own arguments, help included (`eval-routing`'s --compare A B). */
  ownParser?: boolean;
  run(input: CommandInput<FlagsOf<O & W & typeof COMMON_OPTIONS>>): Promise<number>;
}

/** The flags every command takes. */
export const COMMON_OPTIONS = {
  workspace: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies OptionSpecs;

/** Types a command's handler by its own table of flags. */
export const defineCommand = <O extends OptionSpecs, W extends OptionSpecs = Record<never, OptionSpec>>(
  command: CliCommand<O, W>,
): CliCommand => command;
