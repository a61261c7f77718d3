import { UserInputError } from '../../core/errors';
import { resumeRun } from '../../core';
import { defineCommand } from '../command';
import { MODEL_OPTION, modelChoice } from '../modelChoice';
import { loadRun, openRun, printRun, progressTo } from '../openRun';
import { RUN_OPTIONS, runSettingsFrom } from '../runOptions';
import { wiredSettings } from '../../node/wiredSettings';
import { workspaceOf } from '../workspaceOf';

export const resumeCommand = defineCommand({
  name: 'resume',
  synopsis: 'resume <runId>',
  summary: 'continue an interrupted or cancelled run from its log',
  help: `Usage: ticket-runner resume <runId> [--model anthropic|scripted] [--workspace DIR] [options]

Continues a run whose process died (list shows it as interrupted) or that was cancelled.
What ended stands: the rendered tests, the ops, every attempt that reached its verdict.
The step that was cut short is done again: the files it wrote are put back first, then the
run goes on as it would have (the next attempt, or the gates). Without --model it goes on with
the kind of model it was started with. The run options of \`run\` apply.`,
  options: { ...MODEL_OPTION, ...RUN_OPTIONS },
  async run({ flags, positionals, argv, io, signal }) {
    const runId = positionals[0];
    if (!runId) throw new UserInputError('resume needs a run id (see ticket-runner list)');
    const ws = workspaceOf(flags);
    const state = await loadRun(ws, runId);
    const reason =
      state.status === 'cancelled'
        ? 'cancelled, resumed by the operator'
        : `interrupted: its process${state.owner ? ` (pid ${state.owner.pid})` : ''} is gone`;
    const settings = runSettingsFrom(flags);
    const wire = {
      workspaceRoot: ws,
      model: modelChoice(flags, state),
      ticketPath: state.ticketPath,
      continuesRun: runId,
      env: process.env,
      onEvent: progressTo(io),
      ...wiredSettings(settings),
    };
    // A live run holds the lock: the lock's message names it.
    return openRun({ argv, io }, wire, async (deps) =>
      printRun(
        io,
        flags.json,
        await resumeRun(deps, runId, { reason, signal, budget: flags.attempts ? settings.budget : undefined, recovery: settings.recovery }),
      ),
    );
  },
});
