import { UserInputError } from '../../core/errors';
import { resolveCorrection } from '../../core';
import { previewLines } from '../../core/run/views/report';
import { defineCommand } from '../command';
import { MODEL_OPTION, modelChoice } from '../modelChoice';
import { loadRun, openRun, printRun, progressTo } from '../openRun';
import { RUN_OPTIONS, runSettingsFrom } from '../runOptions';
import { wiredSettings } from '../../node/wiredSettings';
import { workspaceOf } from '../workspaceOf';

export const resolveCommand = defineCommand({
  name: 'resolve',
  synopsis: 'resolve <runId> accept|reject',
  summary: "settle a run's pending correction request",
  help: `Usage: ticket-runner resolve <runId> accept|reject [--reason TEXT] [--workspace DIR] [--model anthropic|scripted]

accept applies the proposed change to the ticket (scope addition, corrected test plan
or ticket edit), re-derives the manifest and resumes the run from its log.
reject ends the run with the request on record; it needs --reason and no model.
Without --model the run goes on with the kind of model it was started with.
The resumed run ends with the end-of-ticket gates, as \`run\` does; the same gate and sandbox options apply.`,
  options: { ...MODEL_OPTION, ...RUN_OPTIONS, reason: { type: 'string' } },
  async run({ flags, positionals, argv, io, signal }) {
    const [runId, decision] = positionals;
    if (!runId || (decision !== 'accept' && decision !== 'reject'))
      throw new UserInputError('usage: ticket-runner resolve <runId> accept|reject [--reason TEXT]');
    const ws = workspaceOf(flags);
    const state = await loadRun(ws, runId);
    const settings = runSettingsFrom(flags);
    // A rejection ends the run: it makes no model call, so it needs no key.
    const model = decision === 'reject' ? 'none' : modelChoice(flags, state);
    const wire = {
      workspaceRoot: ws,
      model,
      ticketPath: state.ticketPath,
      continuesRun: runId,
      env: process.env,
      onEvent: progressTo(io),
      ...wiredSettings(settings),
    };
    return openRun({ argv, io }, wire, async (deps) => {
      // The whole change goes on record in the terminal before it is applied.
      const pending = state.corrections.find((c) => c.status === 'pending');
      if (pending && decision === 'accept') io.err(previewLines(pending).join('\n'));
      const result = await resolveCorrection(deps, runId, {
        decision,
        reason: flags.reason,
        by: 'cli',
        signal,
        budget: flags.attempts ? settings.budget : undefined,
        recovery: settings.recovery,
      });
      return printRun(io, flags.json, result);
    });
  },
});
