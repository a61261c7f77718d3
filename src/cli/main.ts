import { existsSync, readFileSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { TicketRunnerError, UserInputError, errorMessage } from '../core/errors';
import { parseTicket } from '../core/stages/ticketLoader';
import { resolveCorrection, resumeRun, rollbackRun, startRun, type RunResult } from '../core';
import { decodeLog, wholeLog } from '../core/run/logCodec';
import { reduceRun, type RunState } from '../core/run/reducer';
import { describeStop, formatRunReport, modelLabel, previewLines } from '../core/run/views/report';
import { ensureStateDir, FileRunStore } from '../node/store/fileRunStore';
import { acquireWorkspaceLock, ownerProbe } from '../node/store/workspaceLock';
import { displayStatus } from '../core/run/liveness';
import { disposeDeps, wireNodeDeps, type ModelChoice } from '../node/wire';
import { DEFAULT_GATES, parseGateList } from '../core/stages/gates/config';
import { GATE_NAMES } from '../core/schema/gates';
import { resolveRunSettings, type RunSettings } from '../core/loop/runSettings';
import { recordTarget, writeRecord } from './recordFile';
import { statsCommand, STATS_HELP } from './statsCommand';
import { loadWorkspaceRuns } from './workspaceRuns';
import { scriptPathFor } from '../node/models/scripted/loadScript';
import { isInside } from '../node/workspacePaths';
import { formatPromptRecords } from '../core/run/views/prompts';
import { progressLine } from './progress';
import { writeCrashReport } from './crashReport';
import { readTicketFile } from './ticketFile';
import { LSP_HELP, renderCommand, RENDER_HELP, validateCommand, VALIDATE_HELP } from './ticketChecks';
import { evalRoutingCommand, EVAL_ROUTING_HELP } from './evalRouting';
import { draftCommand, DRAFT_HELP } from './draftCommand';
import { EXIT, exitForStatus } from './exitCodes';
import { availableParallelism } from 'node:os';
import { batchExitCode, batchJunit, formatBatchSummary } from '../core/run/views/batchReport';
import { findTickets } from './batch/tickets';
import { runBatch, type KeepPolicy } from './batch/runBatch';
import { mergeReport } from './batch/mergeReport';
import { keyFingerprint, parentLink } from './batch/parentLink';
import { BATCH_SLOT_VAR } from './batch/linkMessages';
import { serveSlot } from './batch/slot';

export { EXIT } from './exitCodes';

const SANDBOX_HELP = `  --require-sandbox            stop when the OS sandbox (bubblewrap, sandbox-exec) cannot start,
                               instead of going on with the other protections
  --pass-env NAMES             comma-separated variables tests and tools also get (by default
                               only PATH, LANG, LC_*, TERM, CI, NODE_ENV and TZ)`;
const GATE_HELP = `  --gates LIST                 end-of-ticket gates, comma-separated, or none (default:
                               ${DEFAULT_GATES.join(',')}; all: ${GATE_NAMES.join(',')})
  --build-command CMD          the build gate's shell command (adds the build gate)
  --coverage-threshold X       the fraction of changed executable lines the tests must run
                               (0 to 1, default 0.8)
  --optional-gates LIST        gates whose error (a crashed tool, no usable review) is
                               reported as "not judged" instead of failing the run`;

const BATCH_HELP = `Usage: ticket-runner batch <dir-or-pattern>... [--parallel N] [--keep passed|all|none] [--out DIR] [run options]

Runs every ticket of a folder (its *.ticket.json and *.ticket.yaml) or a pattern (wildcards in the file name,
such as ".tickets/BLOG-*.ticket.json"), each as its own \`ticket-runner run\` in its own tree:
a git worktree of HEAD (the workspace must have no uncommitted change), or a copy of the
workspace outside git. The run options of \`run\` apply to every ticket, but --max-dollars,
which is the batch's.
Progress goes to stderr, each ticket's lines tagged with its id; the summary (or --json report) to stdout.

Options:
  --parallel N      tickets at a time (default: the number of cores)
  --keep passed     (default) a passed ticket's change is committed on branch ticket/<ID> and
                    its worktree removed; failed ones are removed
  --keep all        every tree stays as its run left it
  --keep none       passed and failed trees and branches are removed
                    (a ticket that needs the operator, or was cancelled, always keeps its tree:
                    resolve and resume run there)
  --out DIR         where batch-report.json and batch-junit.xml go (default: the batch's folder,
                    .ticket-runner/batch/<id>/, which also holds the trees and a copy of each run)
  --max-dollars X   over the whole batch (not per ticket): once its tickets' calls have spent X,
                    no ticket starts and running ones stop before their next model call; a call
                    starts only if what it can cost fits, or alone, so X is passed by one call at most
  --max-concurrent-calls N
                    model calls in flight at once per API key, across all the batch's tickets
                    (default: no cap beyond --parallel); the SDK's retry of a 429 stays behind it

Exit codes: 0 all passed, 1 a ticket failed or erred (or the dollar cap left tickets unstarted),
2 tickets wait for the operator (none failed), 3 bad input, 130 cancelled (Ctrl-C cancels every
ticket and each run records it; a second Ctrl-C kills them at once).`;

const HELP: Record<string, string> = {
  main: `ticket-runner: take a ticket to verified code, headless.

Usage: ticket-runner <command> [options]

Commands:
  run <ticket>                       run a ticket (.tickets/<ID>.ticket.json or .ticket.yaml)
  show <runId|path>                  a readable report of a run, from its log alone
  list                               the runs of the workspace
  resolve <runId> accept|reject      settle a run's pending correction request
  resume <runId>                     continue an interrupted or cancelled run from its log
  rollback <runId>                   restore every file the run wrote
  record <runId>                     a run's model answers as a script for --model scripted
  stats                              figures over the workspace's runs: pass rate, routes, vetoes, rungs, cost
  validate <ticket>...               check tickets as a run would, with no run and no model
  render <ticket>                    print the tests a run of the ticket would render
  lsp --stdio                        the ticket language server, for any LSP editor
  batch <dir-or-pattern>...          run many tickets, each in its own git worktree (or copy), in parallel
  merge-report <dirs...>             one batch report and JUnit file from runs that ran anywhere
  tickets <dir-or-pattern>...        the tickets a batch would run, as a JSON list (a CI matrix)
  eval-routing                       measure routing over the routing corpus (a confusion matrix)
  draft --from FILE|- --id ID        draft a ticket from an issue's text with the model; shown, never run

Common options:
  --workspace DIR   the workspace folder (default: the current folder)
  --json            machine-readable output on stdout
  -h, --help        help for a command

Exit codes: 0 passed, 1 failed, 2 needs the operator, 3 error, 130 cancelled (SIGINT),
143 stopped by SIGTERM. Either signal ends the run cleanly: its log records the cancel.`,
  run: `Usage: ticket-runner run <ticket> [--workspace DIR] [--model anthropic|scripted] [options]

Runs a ticket: manifest, rendered tests, Coder attempts, checks, Debugger, router,
then the end-of-ticket gates on the cumulative diff.
Progress goes to stderr; the report (or --json state) to stdout.

Options:
  --model anthropic|scripted   anthropic (the default) needs ANTHROPIC_API_KEY; scripted
                               replays .tickets/<ID>.script.json (a test and demo tool,
                               labelled so everywhere)
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
  --record FILE                write every model answer of this run into FILE (relative to the
                               workspace) as a script: --model scripted replays the run exactly;
                               an existing FILE is kept unless --force
${SANDBOX_HELP}
${GATE_HELP}
  --json`,
  show: `Usage: ticket-runner show <runId|path-to-events.jsonl> [--workspace DIR] [--json] [--prompts]

Prints what happened in a run, built from its event log alone: attempts, checks,
diagnoses with their evidence, routes and the guard's verdicts, corrections, outcome.

  --prompts   every model call's whole prompt and raw answer instead (secrets scrubbed)`,
  list: `Usage: ticket-runner list [--workspace DIR] [--json]`,
  resolve: `Usage: ticket-runner resolve <runId> accept|reject [--reason TEXT] [--workspace DIR] [--model anthropic|scripted]

accept applies the proposed change to the ticket (scope addition, corrected test plan
or ticket edit), re-derives the manifest and resumes the run from its log.
reject ends the run with the request on record; it needs --reason and no model.
Without --model the run goes on with the kind of model it was started with.
The resumed run ends with the end-of-ticket gates, as \`run\` does; the same gate and sandbox options apply.`,
  resume: `Usage: ticket-runner resume <runId> [--model anthropic|scripted] [--workspace DIR] [options]

Continues a run whose process died (list shows it as interrupted) or that was cancelled.
What ended stands: the rendered tests, the ops, every attempt that reached its verdict.
The step that was cut short is done again: the files it wrote are put back first, then the
run goes on as it would have (the next attempt, or the gates). Without --model it goes on with
the kind of model it was started with. The run options of \`run\` apply.`,
  record: `Usage: ticket-runner record <runId> [--out FILE] [--force] [--workspace DIR]

Writes every model answer of a run, by role and in call order, as a script the scripted model
replays (a test and demo tool): a run made with a real model becomes a fixture that needs no key.
The script goes beside the ticket (.tickets/<ID>.script.json) unless --out names another file;
an existing file is kept unless --force.`,
  batch: BATCH_HELP,
  stats: STATS_HELP,
  'merge-report': `Usage: ticket-runner merge-report <dirs...> [--out DIR] [--json]

Reads every run log under the folders (run folders, .ticket-runner/runs/<id>, or folders of
them, such as a CI matrix's downloaded artifacts) and writes one batch-report.json and one
batch-junit.xml to --out (default: the current folder), as \`batch\` would for those runs.
Exits as \`batch\` does for those outcomes.`,
  validate: VALIDATE_HELP,
  render: RENDER_HELP,
  'eval-routing': EVAL_ROUTING_HELP,
  draft: DRAFT_HELP,
  lsp: LSP_HELP,
  tickets: `Usage: ticket-runner tickets <dir-or-pattern>... [--workspace DIR]

Prints the tickets a batch of these would run, as one JSON list of workspace-relative paths:
the matrix of a CI job that runs one ticket per machine.`,
  rollback: `Usage: ticket-runner rollback <runId> [--force] [--workspace DIR]

Puts back every file the run wrote: its content and mode before the run, from the run's
own store; deletes the files and folders it created. If a file changed since the run last
wrote it (your edit), rollback changes nothing, names the files and exits 3.

Options:
  --force    overwrite those changes too`,
};

const OPTIONS = {
  workspace: { type: 'string' },
  model: { type: 'string' },
  json: { type: 'boolean' },
  prompts: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  force: { type: 'boolean' },
  out: { type: 'string' },
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
  parallel: { type: 'string' },
  keep: { type: 'string' },
  'max-concurrent-calls': { type: 'string' },
  record: { type: 'string' },
  from: { type: 'string' },
  id: { type: 'string' },
  format: { type: 'string' },
  script: { type: 'string' },
  stdio: { type: 'boolean' },
} as const;

/** The options of \`run\` a batch passes on to every ticket's run as given. */
const RUN_OPTIONS = ['attempts', 'retries', 'max-tool-calls', 'max-calls', 'max-tokens', 'max-dollars', 'max-wall-ms', 'test-timeout-ms', 'test-command', 'gates', 'build-command', 'coverage-threshold', 'optional-gates', 'require-sandbox', 'pass-env'] as const;
const BATCH_ONLY = new Set(['parallel', 'keep', 'max-concurrent-calls']);
const DRAFT_ONLY = new Set(['from', 'id', 'format', 'script']);

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

/** A run's settings from its flags; the defaults are the core's, the same as the extension's. */
export function runSettingsFrom(flags: Partial<Flags>): RunSettings {
  const f = flags as Flags;
  const raw = f['coverage-threshold'];
  const coverageThreshold = raw === undefined ? undefined : Number(raw);
  if (coverageThreshold !== undefined && !(coverageThreshold >= 0 && coverageThreshold <= 1)) {
    throw new UserInputError(`--coverage-threshold must be a number from 0 to 1, got "${raw}"`);
  }
  return resolveRunSettings({
    attempts: num(f, 'attempts'),
    retries: num(f, 'retries', true, true),
    maxToolCalls: num(f, 'max-tool-calls', true, true),
    modelCalls: num(f, 'max-calls'),
    tokens: num(f, 'max-tokens'),
    dollars: num(f, 'max-dollars', false),
    wallMs: num(f, 'max-wall-ms'),
    gates: f.gates === undefined ? undefined : parseGateList(f.gates),
    optionalGates: f['optional-gates'] === undefined ? undefined : parseGateList(f['optional-gates']),
    buildCommand: f['build-command'],
    coverageThreshold,
    testTimeoutMs: num(f, 'test-timeout-ms'),
    testCommand: f['test-command'],
    requireSandbox: f['require-sandbox'] === true,
    passEnv: (f['pass-env'] ?? '').split(',').map((n) => n.trim()).filter(Boolean),
  });
}

/** What the wiring takes from a run's settings. */
function wiredSettings(s: RunSettings) {
  return { testTimeoutMs: s.testTimeoutMs, testCommand: s.testCommand, gates: s.gates, requireSandbox: s.requireSandbox, passEnv: s.passEnv };
}

/**
 * A real model unless the command says otherwise: the scripted one replays recordings for tests
 * and the demo. A command that continues a run goes on with the kind of model the run started
 * with, so a run of the recorded sample resumes as it began, with no key asked for.
 */
function modelChoice(flags: Flags, continued?: RunState): ModelChoice {
  const m = flags.model ?? (continued?.model?.scripted ? 'scripted' : 'anthropic');
  if (m !== 'scripted' && m !== 'anthropic') throw new UserInputError(`--model must be anthropic or scripted, got "${m}"`);
  return m;
}

function workspaceOf(flags: Flags): string {
  const ws = path.resolve(flags.workspace ?? process.cwd());
  if (!existsSync(ws) || !statSync(ws).isDirectory()) throw new UserInputError(`--workspace ${ws} is not a folder`);
  return ws;
}


interface Io {
  out: (s: string) => void;
  err: (s: string) => void;
}

function printRun(io: Io, flags: Flags, result: RunResult): number {
  if (flags.json) io.out(JSON.stringify({ runId: result.runId, logPath: result.logPath, state: result.state }, null, 2));
  else io.out(formatRunReport(result.state) + `\nLog: ${result.logPath}`);
  return exitForStatus(result.state.status);
}

/** One command that writes the workspace at a time: held until the command's block ends. */
function lockWorkspace(ws: string, argv: readonly string[], io: Io): Disposable {
  const lock = acquireWorkspaceLock(ws, `ticket-runner ${argv.join(' ')}`, (m) => io.err(`warning: ${m}`));
  return { [Symbol.dispose]: () => lock.release() };
}

/** The workspace of a log given by path: `<ws>/.ticket-runner/runs/<id>/events.jsonl`. */
function workspaceOfLog(p: string): string {
  const runDir = existsSync(p) && statSync(p).isDirectory() ? p : path.dirname(p);
  return path.resolve(runDir, '..', '..', '..');
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
  if (!(command in HELP) || command === 'main') throw new UserInputError(`unknown command "${command}". Commands: run, show, list, resolve, resume, rollback, record, stats, validate, render, lsp, batch, merge-report, tickets, draft, eval-routing (see --help)`);
  // Its own options (--corpus, --compare A B): parsed by the command.
  if (command === 'eval-routing') return evalRoutingCommand(rest, io, signal);
  const { values: flags, positionals } = parseArgs({ args: rest, options: OPTIONS, allowPositionals: true, strict: true });
  if (flags.help) {
    io.out(HELP[command]!);
    return EXIT.passed;
  }
  const misplaced = Object.keys(flags).find((k) => BATCH_ONLY.has(k) && command !== 'batch');
  if (misplaced) throw new UserInputError(`--${misplaced} is an option of batch, not of ${command}`);
  if (flags.record !== undefined && command !== 'run') throw new UserInputError(`--record is an option of run, not of ${command}${command === 'record' ? ' (record writes to --out)' : ''}`);
  const notDraft = Object.keys(flags).find((k) => DRAFT_ONLY.has(k) && command !== 'draft');
  if (notDraft) throw new UserInputError(`--${notDraft} is an option of draft, not of ${command}`);
  const progress = (e: Parameters<typeof progressLine>[0]) => {
    const line = progressLine(e);
    if (line) io.err(line);
  };

  switch (command) {
    case 'run': {
      const ticket = positionals[0];
      if (!ticket) throw new UserInputError('run needs a ticket path, such as .tickets/BLOG-1.ticket.json');
      const ws = workspaceOf(flags);
      // The ticket is checked before anything else is loaded: its errors are the likeliest.
      const { rel, text } = readTicketFile(ws, ticket);
      parseTicket(rel, text);
      const settings = runSettingsFrom(flags);
      const model = modelChoice(flags);
      const record = flags.record === undefined ? undefined : recordTarget(ws, flags.record, flags.force === true, '--record');
      // Started by a batch: every model call asks the batch first (its concurrency cap per key, its dollar cap).
      const link = parentLink();
      const key = keyFingerprint(model, model === 'anthropic' ? process.env['ANTHROPIC_API_KEY'] : undefined);
      const deps = await wireNodeDeps({ workspaceRoot: ws, model, ticketPath: rel, env: process.env, onEvent: progress, wrapModel: link ? (m) => link.wrap(m, key) : undefined, ...wiredSettings(settings) });
      try {
        // Taken once the model is wired: a missing key is said without leaving a .ticket-runner/ behind.
        using _lock = lockWorkspace(ws, argv, io);
        const result = await startRun(deps, { ticketPath: rel, budget: settings.budget, recovery: settings.recovery, signal });
        // Whatever the outcome: a failed or stopped run is as worth replaying as a passed one.
        // A record that cannot be written hides nothing of the run: its report comes first.
        const recorded = record ? await writeRecord(ws, result.state, record, flags.force === true).catch((err: unknown) => err) : undefined;
        const code = printRun(io, flags, result);
        if (typeof recorded === 'string') io.err(recorded);
        else if (recorded !== undefined) return reportError(recorded, io, argv);
        return code;
      } finally {
        await disposeDeps(deps);
      }
    }
    case 'show': {
      const id = positionals[0];
      if (!id) throw new UserInputError('show needs a run id or the path of an events.jsonl');
      let state = loadFromPath(path.resolve(id));
      // Whether its process lives is known from the lock of the workspace the log is in.
      let ws: string;
      if (state) ws = workspaceOfLog(path.resolve(id));
      else {
        ws = workspaceOf(flags);
        const loaded = await new FileRunStore(ws).load(id);
        if (loaded.torn) io.err(`warning: the last line (${loaded.torn.line}) of the log is torn, probably by a crash mid-write; it was skipped: ${loaded.torn.error}`);
        state = reduceRun(id, loaded.events);
      }
      if (flags.prompts) {
        const store = new FileRunStore(ws);
        io.out(await formatPromptRecords(state, (hash) => store.getBlob(state.runId, hash)));
        return EXIT.passed;
      }
      const status = displayStatus(state, ownerProbe(ws));
      io.out(flags.json ? JSON.stringify({ ...state, status }, null, 2) : formatRunReport(state, status));
      return EXIT.passed;
    }
    case 'list': {
      const ws = workspaceOf(flags);
      const rows = await loadWorkspaceRuns(ws, io.err);
      const alive = ownerProbe(ws);
      const shown = rows.map((s) => ({ s, status: displayStatus(s, alive) }));
      if (flags.json) io.out(JSON.stringify(shown.map(({ s, status }) => ({ runId: s.runId, ticketId: s.ticketId, status, attempts: s.attempts.length, model: s.model })), null, 2));
      else if (!rows.length) io.out('No runs yet. Start one with: ticket-runner run .tickets/<ID>.ticket.json');
      else {
        for (const { s, status } of shown) {
          const why = s.finished ? describeStop(s.finished.reason) : status === 'interrupted' ? `its process is gone: ticket-runner resume ${s.runId}` : '';
          io.out(`${s.runId}  ${s.ticketId.padEnd(10)} ${status.padEnd(13)} ${s.attempts.length} attempt(s)  ${why}  [${modelLabel(s)}]`);
        }
      }
      return EXIT.passed;
    }
    case 'resolve': {
      const [runId, decision] = positionals;
      if (!runId || (decision !== 'accept' && decision !== 'reject')) throw new UserInputError('usage: ticket-runner resolve <runId> accept|reject [--reason TEXT]');
      const ws = workspaceOf(flags);
      const store = new FileRunStore(ws);
      const state = reduceRun(runId, wholeLog(await store.load(runId), store.logPath(runId)).events);
      using _lock = lockWorkspace(ws, argv, io);
      // The whole change goes on record in the terminal before it is applied.
      const pending = state.corrections.find((c) => c.status === 'pending');
      if (pending && decision === 'accept') io.err(previewLines(pending).join('\n'));
      const settings = runSettingsFrom(flags);
      // A rejection ends the run: it makes no model call, so it needs no key.
      const model = decision === 'reject' ? 'none' : modelChoice(flags, state);
      const deps = await wireNodeDeps({ workspaceRoot: ws, model, ticketPath: state.ticketPath, continuesRun: runId, env: process.env, onEvent: progress, ...wiredSettings(settings) });
      try {
        return printRun(io, flags, await resolveCorrection(deps, runId, { decision, reason: flags.reason, by: 'cli', signal, budget: flags.attempts ? settings.budget : undefined, recovery: settings.recovery }));
      } finally {
        await disposeDeps(deps);
      }
    }
    case 'resume': {
      const runId = positionals[0];
      if (!runId) throw new UserInputError('resume needs a run id (see ticket-runner list)');
      const ws = workspaceOf(flags);
      const store = new FileRunStore(ws);
      const state = reduceRun(runId, wholeLog(await store.load(runId), store.logPath(runId)).events);
      // A live run holds the lock: the lock's message names it.
      using _lock = lockWorkspace(ws, argv, io);
      const reason = state.status === 'cancelled' ? 'cancelled, resumed by the operator' : `interrupted: its process${state.owner ? ` (pid ${state.owner.pid})` : ''} is gone`;
      const settings = runSettingsFrom(flags);
      const deps = await wireNodeDeps({ workspaceRoot: ws, model: modelChoice(flags, state), ticketPath: state.ticketPath, continuesRun: runId, env: process.env, onEvent: progress, ...wiredSettings(settings) });
      try {
        return printRun(io, flags, await resumeRun(deps, runId, { reason, signal, budget: flags.attempts ? settings.budget : undefined, recovery: settings.recovery }));
      } finally {
        await disposeDeps(deps);
      }
    }
    case 'record': {
      const runId = positionals[0];
      if (!runId) throw new UserInputError('record needs a run id (see ticket-runner list)');
      const ws = workspaceOf(flags);
      const store = new FileRunStore(ws);
      const state = reduceRun(runId, wholeLog(await store.load(runId), store.logPath(runId)).events);
      const out = path.resolve(ws, flags.out ?? scriptPathFor(state.ticketPath));
      if (!isInside(ws, out)) throw new UserInputError(`--out ${flags.out} is outside the workspace: write the script inside it`);
      io.out(await writeRecord(ws, state, recordTarget(ws, path.relative(ws, out), flags.force === true, '--out'), flags.force === true));
      return EXIT.passed;
    }
    case 'stats': {
      await statsCommand(workspaceOf(flags), flags.json === true, io.out, io.err);
      return EXIT.passed;
    }
    case 'validate': {
      if (!positionals.length) throw new UserInputError('validate needs one or more ticket paths, such as .tickets/BLOG-1.ticket.json');
      return validateCommand(workspaceOf(flags), positionals, flags.json === true, io.out, signal);
    }
    case 'render': {
      if (positionals.length !== 1) throw new UserInputError('render needs one ticket path, such as .tickets/BLOG-1.ticket.json');
      return renderCommand(workspaceOf(flags), positionals[0]!, io.out, io.err, signal);
    }
    case 'draft':
      return draftCommand(
        { ws: workspaceOf(flags), from: flags.from, id: flags.id, format: flags.format, out: flags.out, model: modelChoice(flags), script: flags.script, json: flags.json === true },
        io,
        signal,
      );
    case 'lsp': {
      if (flags.stdio !== true) throw new UserInputError('lsp speaks over stdio only: run ticket-runner lsp --stdio');
      // Loaded here: the server's libraries are not every command's. It lives until the client exits it.
      (await import('../lsp/stdio.js')).serveOverStdio();
      return EXIT.passed;
    }
    case 'tickets': {
      io.out(JSON.stringify(findTickets(workspaceOf(flags), positionals)));
      return EXIT.passed;
    }
    case 'batch':
      return batchCommand(flags, positionals, io, signal);
    case 'merge-report': {
      const report = mergeReport(positionals, exitForStatus);
      const out = path.resolve(flags.out ?? process.cwd());
      mkdirSync(out, { recursive: true });
      writeFileSync(path.join(out, 'batch-report.json'), JSON.stringify(report, null, 2) + '\n');
      writeFileSync(path.join(out, 'batch-junit.xml'), batchJunit(report));
      io.out(flags.json ? JSON.stringify(report, null, 2) : `${formatBatchSummary(report)}\nReport: ${path.join(out, 'batch-report.json')}\nJUnit: ${path.join(out, 'batch-junit.xml')}`);
      return batchExitCode(report, EXIT);
    }
    case 'rollback': {
      const runId = positionals[0];
      if (!runId) throw new UserInputError('rollback needs a run id (see ticket-runner list)');
      const ws = workspaceOf(flags);
      using _lock = lockWorkspace(ws, argv, io);
      const deps = await wireNodeDeps({ workspaceRoot: ws, model: 'none', env: process.env });
      const result = await rollbackRun(deps, runId, { force: flags.force });
      const done = result.rolledBack;
      if (flags.json) io.out(JSON.stringify({ runId, rolledBack: result.state.rolledBack, files: done.files, folders: done.folders ?? [], forced: done.forced ?? [] }));
      else {
        io.out(`Run ${runId} rolled back: ${done.files.length} file(s) put back as they were before the run.`);
        for (const f of done.files) io.out(`  ${f.restored === 'deleted' ? 'deleted' : 'restored'} ${f.path}`);
        for (const f of done.folders ?? []) io.out(`  removed folder ${f}`);
        if (done.forced?.length) io.out(`  overwritten (--force): ${done.forced.join(', ')}`);
      }
      return result.state.rolledBack ? EXIT.passed : EXIT.error;
    }
  }
  return EXIT.error;
}

/** The built CLI this code runs in: each ticket of a batch runs in a child of it. */
const CLI_ENTRY = __filename;

async function batchCommand(flags: Flags, positionals: string[], io: Io, signal: AbortSignal): Promise<number> {
  const ws = workspaceOf(flags);
  const keep = (flags.keep ?? 'passed') as KeepPolicy;
  if (!['passed', 'all', 'none'].includes(keep)) throw new UserInputError(`--keep must be passed, all or none, got "${flags.keep}"`);
  const parallel = num(flags, 'parallel') ?? availableParallelism();
  // Every run option is checked once here: a bad value is one line, before any tree is made.
  const model = modelChoice(flags);
  runSettingsFrom(flags);
  const runArgs = ['--model', model];
  // --max-dollars is the batch's own cap: the batch holds it across every ticket's calls.
  const maxDollars = num(flags, 'max-dollars', false);
  const maxConcurrentCalls = num(flags, 'max-concurrent-calls');
  for (const name of RUN_OPTIONS) {
    if (name === 'max-dollars') continue;
    const v = flags[name];
    if (v === true) runArgs.push(`--${name}`);
    else if (typeof v === 'string') runArgs.push(`--${name}`, v);
  }
  const tickets = findTickets(ws, positionals);
  if (!CLI_ENTRY.endsWith('.js')) throw new UserInputError('batch runs each ticket in the built CLI: run it as ticket-runner (npm run build makes dist/cli.js)');
  // Made as every run makes it, with its .gitignore: the trees and copies stay out of the project's git.
  const batchDir = path.join(ensureStateDir(ws), 'batch', new Date().toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15) + '-' + process.pid);
  const result = await runBatch({ ws, tickets, parallel, keep, runArgs, modelOption: `--model ${model}`, batchDir, outDir: path.resolve(flags.out ?? batchDir), cliEntry: CLI_ENTRY, maxDollars, maxConcurrentCalls, signal, progress: io.err });
  io.out(flags.json ? JSON.stringify(result.report, null, 2) : `${formatBatchSummary(result.report)}\nReport: ${result.reportPath}\nJUnit: ${result.junitPath}`);
  return batchExitCode(result.report, EXIT);
}

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
    io.err(`ticket-runner: unexpected error: ${oneLine(errorMessage(err)) || 'unknown'}. ${file ? `A crash report with the details is at ${file}` : 'No crash report could be written'}; please report it.`);
  }
  return EXIT.error;
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
