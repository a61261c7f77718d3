import { availableParallelism } from 'node:os';
import * as path from 'node:path';
import { UserInputError } from '../../core/errors';
import { batchExitCode, formatBatchSummary } from '../../core/run/views/batchReport';
import { ensureStateDir } from '../../node/store/fileRunStore';
import { runBatch, type KeepPolicy } from '../batch/runBatch';
import { findTickets } from '../batch/tickets';
import { defineCommand } from '../command';
import { EXIT } from '../exitCodes';
import { MODEL_OPTION, modelChoice } from '../modelChoice';
import { num, RUN_OPTIONS, runSettingsFrom } from '../runOptions';
import { workspaceOf } from '../workspaceOf';

/** The built CLI this code runs in: each ticket of a batch runs in a child of it. */
const CLI_ENTRY = __filename;

export const batchCommand = defineCommand({
  name: 'batch',
  synopsis: 'batch <dir-or-pattern>...',
  summary: 'run many tickets, each in its own git worktree (or copy), in parallel',
  help: `Usage: ticket-runner batch <dir-or-pattern>... [--parallel N] [--keep passed|all|none] [--out DIR] [run options]

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
ticket and each run records it; a second Ctrl-C kills them at once).`,
  options: { ...MODEL_OPTION, ...RUN_OPTIONS, out: { type: 'string' } },
  ownOptions: { parallel: { type: 'string' }, keep: { type: 'string' }, 'max-concurrent-calls': { type: 'string' } },
  async run({ flags, positionals, io, signal }) {
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
    for (const name of Object.keys(RUN_OPTIONS) as (keyof typeof RUN_OPTIONS)[]) {
      if (name === 'max-dollars') continue;
      const v = flags[name];
      if (v === true) runArgs.push(`--${name}`);
      else if (typeof v === 'string') runArgs.push(`--${name}`, v);
    }
    const tickets = findTickets(ws, positionals);
    if (!CLI_ENTRY.endsWith('.js'))
      throw new UserInputError('batch runs each ticket in the built CLI: run it as ticket-runner (npm run build makes dist/cli.js)');
    // Made as every run makes it, with its .gitignore: the trees and copies stay out of the project's git.
    const batchDir = path.join(
      ensureStateDir(ws),
      'batch',
      new Date().toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15) + '-' + process.pid,
    );
    const result = await runBatch({
      ws,
      tickets,
      parallel,
      keep,
      runArgs,
      modelOption: `--model ${model}`,
      batchDir,
      outDir: path.resolve(flags.out ?? batchDir),
      cliEntry: CLI_ENTRY,
      maxDollars,
      maxConcurrentCalls,
      signal,
      progress: io.err,
    });
    io.out(
      flags.json
        ? JSON.stringify(result.report, null, 2)
        : `${formatBatchSummary(result.report)}\nReport: ${result.reportPath}\nJUnit: ${result.junitPath}`,
    );
    return batchExitCode(result.report, EXIT);
  },
});
