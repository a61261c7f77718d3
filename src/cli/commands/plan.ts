import { UserInputError } from '../../core/errors';
import { defineCommand } from '../command';
import { MODEL_OPTION, modelChoice } from '../modelChoice';
import { PLAN_DRAFT_HELP, planDraft } from '../plan/planDraft';
import { planRun, planShow } from '../plan/planRun';
import { RUN_OPTIONS, runSettingsFrom } from '../runOptions';
import { workspaceOf } from '../workspaceOf';

const PLAN_HELP = `Usage: ticket-runner plan run <plan> [--no-commit] [--model anthropic|scripted] [--workspace DIR] [run options] [--json]
       ticket-runner plan resume <plan> [same options]
       ticket-runner plan show <plan> [--json]
       ticket-runner plan draft --from TASKS.md [--requirements FILE] [--id PLAN-ID] [--model anthropic|scripted] [--script FILE] [--json]

A plan (.tickets/<ID>.plan.yaml or .plan.json) lists tickets and, with after:, the tickets each
waits for.

plan run runs them one after another in that order, on one working tree: each ticket starts
from the code the tickets before it left, and is verified on its own, as \`run\` verifies a ticket
(the run options of \`run\` apply to each). In git, each passed ticket is committed on the branch
plan/<ID> (made from the current commit the first time; your uncommitted changes stay out of
its commits), unless --no-commit. A ticket that does not pass pauses the tickets that wait for
it; the others go on. Exits 0 when every ticket passed, 2 when one waits for your decision on a
correction, 1 otherwise.

plan resume goes on with the plan's last run: after you settle a correction (ticket-runner
resolve <runId> accept|reject), or fix a ticket that failed. A ticket that failed, was cancelled
or was interrupted runs again (its last run rolled back first, or resumed when interrupted);
the tickets it paused follow.

plan show prints the plan's report from its tickets' runs: each ticket's state, attempts, cost
and time, and what to do next. Nothing runs.

${PLAN_DRAFT_HELP}`;

const ACTIONS = ['run', 'resume', 'show', 'draft'] as const;

export const planCommand = defineCommand({
  name: 'plan',
  synopsis: 'plan run|resume|show <plan>, plan draft --from TASKS.md',
  summary: "run a plan of tickets in order, or draft one from a spec's tasks.md",
  help: PLAN_HELP,
  options: { ...MODEL_OPTION, ...RUN_OPTIONS, from: { type: 'string' }, id: { type: 'string' }, script: { type: 'string' } },
  ownOptions: { requirements: { type: 'string' }, 'no-commit': { type: 'boolean' } },
  run: ({ flags, positionals, argv, io, signal }) => {
    const [action, file, ...rest] = positionals;
    if (!ACTIONS.includes(action as (typeof ACTIONS)[number]))
      throw new UserInputError(
        `plan takes one of ${ACTIONS.join(', ')} (such as ticket-runner plan run .tickets/NOTES.plan.yaml); got "${positionals.join(' ')}"`,
      );
    const ws = workspaceOf(flags);
    const json = flags.json === true;
    if (action === 'draft') {
      if (file !== undefined)
        throw new UserInputError(`plan draft reads its task list from --from FILE; got "${positionals.slice(1).join(' ')}" too`);
      return planDraft(
        { ws, from: flags.from, requirements: flags.requirements, id: flags.id, model: modelChoice(flags), script: flags.script, json },
        io,
        signal,
      );
    }
    if (!file || rest.length) throw new UserInputError(`plan ${action} takes one plan file, such as .tickets/NOTES.plan.yaml`);
    if (action === 'show') return planShow({ ws, file, json, io });
    return planRun({
      ws,
      file,
      resume: action === 'resume',
      model: modelChoice(flags),
      settings: runSettingsFrom(flags),
      commit: flags['no-commit'] !== true,
      json,
      argv,
      io,
      signal,
    });
  },
});
