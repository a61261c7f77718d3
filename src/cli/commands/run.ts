import { UserInputError } from '../../core/errors';
import { earlierChanges, startRun } from '../../core';
import { earlierChangesNote } from '../earlierChanges';
import { GATE_NAMES } from '../../core/schema/gates';
import { DEFAULT_GATES } from '../../core/stages/common/gateConfig';
import { parseTicket } from '../../core/ticket/ticketLoader';
import { keyFingerprint, parentLink } from '../batch/parentLink';
import { defineCommand } from '../command';
import { MODEL_OPTION, modelChoice } from '../modelChoice';
import { openRun, printRun, progressTo } from '../openRun';
import { recordTarget, writeRecord } from '../recordFile';
import { reportError } from '../reportError';
import { RUN_OPTIONS, runSettingsFrom } from '../runOptions';
import { wiredSettings } from '../../node/wiredSettings';
import { readTicketFile } from '../../node/tickets/ticketFile';
import { workspaceOf } from '../workspaceOf';

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
                               reported as "not judged" instead of failing the run
  --all-project-tests          the projectTests gate runs the project's whole test suite,
                               not only the test files that reach the change`;

export const runCommand = defineCommand({
  name: 'run',
  synopsis: 'run <ticket>',
  summary: 'run a ticket (.tickets/<ID>.ticket.json or .ticket.yaml)',
  help: `Usage: ticket-runner run <ticket> [--workspace DIR] [--model anthropic|scripted] [options]

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
  options: { ...MODEL_OPTION, ...RUN_OPTIONS, force: { type: 'boolean' } },
  ownOptions: { record: { type: 'string' } },
  async run({ flags, positionals, argv, io, signal }) {
    const ticket = positionals[0];
    if (!ticket) throw new UserInputError('run needs a ticket path, such as .tickets/BLOG-1.ticket.json');
    const ws = workspaceOf(flags);
    // The ticket is checked before anything else is loaded: its errors are the likeliest.
    const { rel, text } = readTicketFile(ws, ticket);
    parseTicket(rel, text);
    const settings = runSettingsFrom(flags);
    const model = modelChoice(flags);
    const force = flags.force === true;
    const record = flags.record === undefined ? undefined : recordTarget(ws, flags.record, force, '--record');
    // Started by a batch: every model call asks the batch first (its concurrency cap per key, its dollar cap).
    const link = parentLink();
    const key = keyFingerprint(model, model === 'anthropic' ? process.env['ANTHROPIC_API_KEY'] : undefined);
    const wrapModel = link ? (m: Parameters<typeof link.wrap>[0]) => link.wrap(m, key) : undefined;
    return openRun(
      { argv, io },
      { workspaceRoot: ws, model, ticketPath: rel, env: process.env, onEvent: progressTo(io), wrapModel, ...wiredSettings(settings) },
      async (deps) => {
        // A passed run's change is what the next ticket builds on, unless the answers are recorded (see LeftoverOptions).
        const left = await earlierChanges(deps, { passed: model === 'scripted' });
        if (left.length) io.err(earlierChangesNote(left, model === 'scripted'));
        const result = await startRun(deps, { ticketPath: rel, budget: settings.budget, recovery: settings.recovery, signal });
        // Whatever the outcome: a failed or stopped run is as worth replaying as a passed one.
        // A record that cannot be written hides nothing of the run: its report comes first.
        const recorded = record ? await writeRecord(ws, result.state, record, force).catch((err: unknown) => err) : undefined;
        const code = printRun(io, flags.json, result);
        if (typeof recorded === 'string') io.err(recorded);
        else if (recorded !== undefined) return reportError(recorded, io, argv);
        return code;
      },
    );
  },
});
