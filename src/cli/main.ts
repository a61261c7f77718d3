import { existsSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { TicketRunnerError, UserInputError, errorMessage } from '../core/errors';
import { normalizeRelPath } from '../core/pipeline/paths';
import type { RunResult } from '../core/pipeline/runTicket';
import { parseTicket } from '../core/pipeline/ticketLoader';
import { resolveCorrection, rollbackRun, startRun } from '../core/pipeline/runTicket';
import { decodeLog } from '../core/run/logCodec';
import { reduceRun, type RunState } from '../core/run/reducer';
import { describeStop, formatRunReport, modelLabel, previewLines } from '../core/run/report';
import { ladderLength, resolveRecovery } from '../core/recovery/policy';
import type { Budget, RecoveryPolicy } from '../core/schema/events';
import { FileRunStore } from '../node/store/fileRunStore';
import { disposeDeps, wireNodeDeps, type ModelChoice } from '../node/wire';
import { CLI_DEFAULT_GATES, parseGateList, type GateSettings } from '../core/pipeline/gates/config';
import { GATE_NAMES } from '../core/schema/gates';
import { progressLine } from './progress';

/** Exit codes a script can tell apart. */
export const EXIT = { passed: 0, failed: 1, needsOperator: 2, error: 3, cancelled: 130 } as const;

const SANDBOX_HELP = `  --require-sandbox            stop when the OS sandbox (bubblewrap, sandbox-exec) cannot start,
                               instead of going on with the other protections
  --pass-env NAMES             comma-separated variables tests and tools also get (by default
                               only PATH, LANG, LC_*, TERM, CI, NODE_ENV and TZ)`;
const GATE_HELP = `  --gates LIST                 end-of-ticket gates, comma-separated, or none (default:
                               ${CLI_DEFAULT_GATES.join(',')}; all: ${GATE_NAMES.join(',')})
  --build-command CMD          the build gate's shell command (adds the build gate)
  --coverage-threshold X       the fraction of changed executable lines the tests must run
                               (0 to 1, default 1)
  --optional-gates LIST        gates whose error (a crashed tool, no usable review) is
                               reported as "not judged" instead of failing the run`;

const HELP: Record<string, string> = {
  main: `ticket-runner: take a ticket to verified code, headless.

Usage: ticket-runner <command> [options]

Commands:
  run <ticket>                       run a ticket (.tickets/<ID>.ticket.json)
  show <runId|path>                  a readable report of a run, from its log alone
  list                               the runs of the workspace
  resolve <runId> accept|reject      settle a run's pending correction request
  rollback <runId>                   restore every file the run wrote

Common options:
  --workspace DIR   the workspace folder (default: the current folder)
  --json            machine-readable output on stdout
  -h, --help        help for a command

Exit codes: 0 passed, 1 failed, 2 needs the operator, 3 error, 130 cancelled.`,
  run: `Usage: ticket-runner run <ticket> [--workspace DIR] [--model scripted|anthropic] [options]

Runs a ticket: manifest, rendered tests, Coder attempts, checks, Debugger, router,
then the end-of-ticket gates on the cumulative diff.
Progress goes to stderr; the report (or --json state) to stdout.

Options:
  --model scripted|anthropic   scripted replays .tickets/<ID>.script.json (a test and demo
                               tool, labelled so everywhere); anthropic needs ANTHROPIC_API_KEY
  --attempts N                 Coder attempts per run segment, over every recovery rung
                               (default: the ladder's length, 1 + retries + 1 thinking attempt)
  --retries N                  rung 2: retries after a failed check or test (default 2)
  --max-tool-calls N           rung 4: run_tests calls per attempt (default 3; 0 turns it off)
  --max-calls N  --max-tokens N  --max-dollars X  --max-wall-ms N    run budgets; past one
                               the run stops with its typed reason (wall time also stops the
                               work in flight)
  --test-timeout-ms N          time limit per test run (default 120000)
  --test-command CMD           run the tests with this shell command instead of the detected
                               runner (the rendered test files are appended; the exit code decides)
${SANDBOX_HELP}
${GATE_HELP}
  --json`,
  show: `Usage: ticket-runner show <runId|path-to-events.jsonl> [--workspace DIR] [--json]

Prints what happened in a run, built from its event log alone: attempts, checks,
diagnoses with their evidence, routes and the guard's verdicts, corrections, outcome.`,
  list: `Usage: ticket-runner list [--workspace DIR] [--json]`,
  resolve: `Usage: ticket-runner resolve <runId> accept|reject [--reason TEXT] [--workspace DIR] [--model scripted|anthropic]

accept applies the proposed change to the ticket (scope addition, corrected test plan
or ticket edit), re-derives the manifest and resumes the run from its log.
reject ends the run with the request on record; it needs --reason.
The resumed run ends with the end-of-ticket gates, as \`run\` does; the same gate and sandbox options apply.`,
  rollback: `Usage: ticket-runner rollback <runId> [--workspace DIR]

Restores every file the run wrote to its content before the run, and deletes the files
it created, from the run's own store.`,
};

const OPTIONS = {
  workspace: { type: 'string' },
  model: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  reason: { type: 'string' },
  attempts: { type: 'string' },
  retries: { type: 'string' },
  'max-tool-calls': { type: 'string' },
  'max-calls': { type: 'string' },
  'max-tokens': { type: 'string' },
  'max-dollars': { type: 'string' },
  'max-wall-ms': { type: 'string' },
  'test-timeout-ms': { type: 'string' },
  'test-command': { type: 'string' },
  gates: { type: 'string' },
  'build-command': { type: 'string' },
  'coverage-threshold': { type: 'string' },
  'optional-gates': { type: 'string' },
  'require-sandbox': { type: 'boolean' },
  'pass-env': { type: 'string' },
} as const;

type Flags = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];

function num(flags: Flags, name: keyof Flags, integer = true, zero = false): number | undefined {
  const raw = flags[name];
  if (raw === undefined || typeof raw !== 'string') return undefined;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0 || (n === 0 && !zero) || (integer && !Number.isInteger(n))) {
    throw new UserInputError(`--${name} must be a ${zero ? 'non-negative' : 'positive'} ${integer ? 'integer' : 'number'}, got "${raw}"`);
  }
  return n;
}

function recoveryFrom(flags: Flags): Partial<RecoveryPolicy> {
  return { retries: num(flags, 'retries', true, true), maxToolCalls: num(flags, 'max-tool-calls', true, true) };
}

function budgetFrom(flags: Flags): Budget {
  return {
    attempts: num(flags, 'attempts') ?? ladderLength(resolveRecovery(recoveryFrom(flags))),
    modelCalls: num(flags, 'max-calls'),
    tokens: num(flags, 'max-tokens'),
    dollars: num(flags, 'max-dollars', false),
    wallMs: num(flags, 'max-wall-ms'),
  };
}

/** The sandbox options of a run: `--require-sandbox`, `--pass-env A,B`. */
function sandboxFrom(flags: Flags): { requireSandbox: boolean; passEnv: string[] } {
  return { requireSandbox: flags['require-sandbox'] === true, passEnv: (flags['pass-env'] ?? '').split(',').map((n) => n.trim()).filter(Boolean) };
}

/** The end-of-ticket gates of a run: the CLI's defaults, `--gates`, and a build gate with its command. */
function gatesFrom(flags: Flags): GateSettings {
  const enabled = flags.gates === undefined ? [...CLI_DEFAULT_GATES] : parseGateList(flags.gates);
  const buildCommand = flags['build-command']?.trim() || undefined;
  if (buildCommand && !enabled.includes('build')) enabled.push('build');
  const raw = flags['coverage-threshold'];
  const coverageThreshold = raw === undefined ? undefined : Number(raw);
  if (coverageThreshold !== undefined && !(coverageThreshold >= 0 && coverageThreshold <= 1)) {
    throw new UserInputError(`--coverage-threshold must be a number from 0 to 1, got "${raw}"`);
  }
  const optional = flags['optional-gates'] === undefined ? [] : parseGateList(flags['optional-gates']);
  return { enabled, buildCommand, coverageThreshold, optional };
}

function modelChoice(flags: Flags): ModelChoice {
  const m = flags.model ?? 'scripted';
  if (m !== 'scripted' && m !== 'anthropic') throw new UserInputError(`--model must be scripted or anthropic, got "${m}"`);
  return m;
}

function workspaceOf(flags: Flags): string {
  const ws = path.resolve(flags.workspace ?? process.cwd());
  if (!existsSync(ws) || !statSync(ws).isDirectory()) throw new UserInputError(`--workspace ${ws} is not a folder`);
  return ws;
}

const exitFor = (state: RunState): number => (state.status === 'running' ? EXIT.error : EXIT[state.status]);

interface Io {
  out: (s: string) => void;
  err: (s: string) => void;
}

function printRun(io: Io, flags: Flags, result: RunResult): number {
  if (flags.json) io.out(JSON.stringify({ runId: result.runId, logPath: result.logPath, state: result.state }, null, 2));
  else io.out(formatRunReport(result.state) + `\nLog: ${result.logPath}`);
  return exitFor(result.state);
}

/** The path form of `show`: a log file or a run folder, read without a workspace. */
function loadFromPath(p: string): RunState | null {
  const file = existsSync(p) && statSync(p).isDirectory() ? path.join(p, 'events.jsonl') : p;
  if (!existsSync(file) || !file.endsWith('.jsonl')) return null;
  const log = decodeLog(readFileSync(file, 'utf8'), file);
  const runId = log.events[0]?.runId ?? path.basename(path.dirname(file));
  return reduceRun(runId, log.events);
}

export async function main(argv: string[], io: Io, signal: AbortSignal): Promise<number> {
  const [command, ...rest] = argv;
  if (!command || command === '-h' || command === '--help' || command === 'help') {
    io.out(HELP.main!);
    return command ? EXIT.passed : EXIT.error;
  }
  if (!(command in HELP) || command === 'main') throw new UserInputError(`unknown command "${command}". Commands: run, show, list, resolve, rollback (see --help)`);
  const { values: flags, positionals } = parseArgs({ args: rest, options: OPTIONS, allowPositionals: true, strict: true });
  if (flags.help) {
    io.out(HELP[command]!);
    return EXIT.passed;
  }
  const progress = (e: Parameters<typeof progressLine>[0]) => {
    const line = progressLine(e);
    if (line) io.err(line);
  };

  switch (command) {
    case 'run': {
      const ticket = positionals[0];
      if (!ticket) throw new UserInputError('run needs a ticket path, such as .tickets/BLOG-1.ticket.json');
      const ws = workspaceOf(flags);
      const rel = normalizeRelPath(path.relative(ws, path.resolve(ws, ticket)).split(path.sep).join('/'));
      // The ticket is checked before anything else is loaded: its errors are the likeliest.
      const ticketFile = path.join(ws, rel);
      if (!existsSync(ticketFile)) throw new UserInputError(`no ticket at ${rel} in ${ws}`);
      parseTicket(rel, readFileSync(ticketFile, 'utf8'));
      const deps = await wireNodeDeps({ workspaceRoot: ws, model: modelChoice(flags), ticketPath: rel, env: process.env, onEvent: progress, testTimeoutMs: num(flags, 'test-timeout-ms'), testCommand: flags['test-command'], gates: gatesFrom(flags), ...sandboxFrom(flags) });
      try {
        return printRun(io, flags, await startRun(deps, { ticketPath: rel, budget: budgetFrom(flags), recovery: recoveryFrom(flags), signal }));
      } finally {
        disposeDeps(deps);
      }
    }
    case 'show': {
      const id = positionals[0];
      if (!id) throw new UserInputError('show needs a run id or the path of an events.jsonl');
      let state = loadFromPath(path.resolve(id));
      if (!state) {
        const store = new FileRunStore(workspaceOf(flags));
        const loaded = await store.load(id);
        if (loaded.torn) io.err(`warning: the last line (${loaded.torn.line}) of the log is torn, probably by a crash mid-write; it was skipped: ${loaded.torn.error}`);
        state = reduceRun(id, loaded.events);
      }
      io.out(flags.json ? JSON.stringify(state, null, 2) : formatRunReport(state));
      return EXIT.passed;
    }
    case 'list': {
      const store = new FileRunStore(workspaceOf(flags));
      const rows = [];
      for (const id of await store.listRuns()) {
        const loaded = await store.load(id);
        rows.push(reduceRun(id, loaded.events));
      }
      if (flags.json) io.out(JSON.stringify(rows.map((s) => ({ runId: s.runId, ticketId: s.ticketId, status: s.status, attempts: s.attempts.length, model: s.model })), null, 2));
      else if (!rows.length) io.out('No runs yet. Start one with: ticket-runner run .tickets/<ID>.ticket.json');
      else for (const s of rows) io.out(`${s.runId}  ${s.ticketId.padEnd(10)} ${s.status.padEnd(13)} ${s.attempts.length} attempt(s)  ${s.finished ? describeStop(s.finished.reason) : ''}  [${modelLabel(s)}]`);
      return EXIT.passed;
    }
    case 'resolve': {
      const [runId, decision] = positionals;
      if (!runId || (decision !== 'accept' && decision !== 'reject')) throw new UserInputError('usage: ticket-runner resolve <runId> accept|reject [--reason TEXT]');
      const ws = workspaceOf(flags);
      const state = reduceRun(runId, (await new FileRunStore(ws).load(runId)).events);
      // The whole change goes on record in the terminal before it is applied.
      const pending = state.corrections.find((c) => c.status === 'pending');
      if (pending && decision === 'accept') io.err(previewLines(pending).join('\n'));
      const deps = await wireNodeDeps({ workspaceRoot: ws, model: modelChoice(flags), ticketPath: state.ticketPath, env: process.env, onEvent: progress, testTimeoutMs: num(flags, 'test-timeout-ms'), testCommand: flags['test-command'], gates: gatesFrom(flags), ...sandboxFrom(flags) });
      try {
        return printRun(io, flags, await resolveCorrection(deps, runId, { decision, reason: flags.reason, by: 'cli', signal, budget: flags.attempts ? budgetFrom(flags) : undefined, recovery: recoveryFrom(flags) }));
      } finally {
        disposeDeps(deps);
      }
    }
    case 'rollback': {
      const runId = positionals[0];
      if (!runId) throw new UserInputError('rollback needs a run id (see ticket-runner list)');
      const ws = workspaceOf(flags);
      const deps = await wireNodeDeps({ workspaceRoot: ws, model: 'none', env: process.env });
      const result = await rollbackRun(deps, runId);
      const done = result.state.rolledBack;
      io.out(flags.json ? JSON.stringify({ runId, rolledBack: done }) : `Run ${runId} rolled back: ${result.state.eventCount} events read, the files it wrote are restored.`);
      return done ? EXIT.passed : EXIT.error;
    }
  }
  return EXIT.error;
}

/** Only user errors are shown as a message alone; anything else is a bug, shown with its name. */
function report(err: unknown, io: Io): number {
  if (err instanceof UserInputError || (err instanceof Error && err.name === 'TypeError' && /parseArgs|option/i.test(err.message)) || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
    io.err(`ticket-runner: ${errorMessage(err)}`);
  } else if (err instanceof TicketRunnerError) {
    io.err(`ticket-runner: ${err.name}: ${err.message}`);
  } else {
    io.err(`ticket-runner: unexpected error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  }
  return EXIT.error;
}

export async function runCli(argv: string[], io: Io, signal: AbortSignal): Promise<number> {
  try {
    return await main(argv, io, signal);
  } catch (err) {
    return report(err, io);
  }
}

if (require.main === module) {
  const controller = new AbortController();
  process.once('SIGINT', () => {
    process.stderr.write('ticket-runner: cancelling (the run records it)…\n');
    controller.abort();
  });
  void runCli(process.argv.slice(2), { out: (s) => process.stdout.write(s + '\n'), err: (s) => process.stderr.write(s + '\n') }, controller.signal).then((code) => {
    process.exitCode = code;
  });
}
