import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { UserInputError } from '../../core/errors';
import { draftPlan, type PlanDraft } from '../../core/stages/authoring/draftPlan';
import { TICKET_ID } from '../../core/ticket/ticketIds';
import { checkPlanIsNew, workspaceTicketIds, writePlanDraft } from '../../node/plans/planDraftFiles';
import { systemClock } from '../../node/store/systemClock';
import { wireDraftModel, wireTicketChecks, type ModelChoice } from '../../node/wire';
import type { Io } from '../command';
import { EXIT } from '../exitCodes';

export const PLAN_DRAFT_HELP = `plan draft drafts a plan of tickets from a spec's task list: Spec Kit's tasks.md (phases, "- [ ] T001 [P]
[US1] text") or Kiro's (numbered tasks and sub-tasks, "_Requirements: 1.1_" links to the EARS
criteria of requirements.md: --requirements, by default the requirements.md beside the tasks).
One ticket is drafted per open task, as \`draft\` drafts one (scope from the paths the task
names, acceptance criteria from the criteria it links), checked as \`validate\` checks a ticket,
and written as .tickets/<ID>.ticket.yaml with the next free ids. The plan, .tickets/<PLAN-ID>.plan.yaml
(the id: --id, by default the tasks' folder's name), lists them with the tasks' order as after:
Spec Kit's phases run in turn and a [P] task waits only for the phase before; Kiro's tasks run
in order. A checked task, a task with no valid draft (listed with why; a draft with errors is
written, for you to fix, and left out of the plan), an unknown marker: each is printed and
kept in the plan's source.notes. Nothing runs. Exits 0 when every open task has a ticket in
the plan, 3 otherwise. --model scripted replays the "drafter" answers of --script FILE, by
default of .tickets/<PLAN-ID>.script.json (a test and demo tool).`;

export interface PlanDraftOptions {
  ws: string;
  from: string | undefined;
  requirements: string | undefined;
  id: string | undefined;
  model: ModelChoice;
  script: string | undefined;
  json: boolean;
}

/** A file the command reads, workspace-relative with forward slashes, and its text. */
function readInput(ws: string, file: string, what: string): { file: string; text: string } {
  const abs = path.resolve(ws, file);
  if (!existsSync(abs)) throw new UserInputError(`no file ${file} to read ${what} from`);
  return { file: path.relative(ws, abs).split(path.sep).join('/'), text: readFileSync(abs, 'utf8') };
}

/** The plan's id when --id gives none: the tasks' folder's name (specs/002-reading-list), if it is an id. */
function defaultPlanId(tasksFile: string): string {
  const folder = path.posix.basename(path.posix.dirname(tasksFile));
  if (folder && folder !== '.' && TICKET_ID.test(folder)) return folder;
  throw new UserInputError(`plan draft needs --id: the plan's id (such as SHOP-PLAN), since ${tasksFile}'s folder name is not one`);
}

/** `plan draft`: a ticket per task of a spec's task list, and the plan that orders them; nothing runs. */
export async function planDraft(o: PlanDraftOptions, io: Io, signal: AbortSignal): Promise<number> {
  if (!o.from) throw new UserInputError("plan draft needs --from FILE: the spec's tasks.md");
  const tasks = readInput(o.ws, o.from, 'tasks');
  const beside = path.posix.join(path.posix.dirname(tasks.file), 'requirements.md');
  const requirements = o.requirements
    ? readInput(o.ws, o.requirements, 'requirements')
    : existsSync(path.join(o.ws, beside))
      ? readInput(o.ws, beside, 'requirements')
      : undefined;
  if (o.id !== undefined && !TICKET_ID.test(o.id))
    throw new UserInputError(`--id must be letters, digits, dot, dash or underscore (such as SHOP-PLAN), got "${o.id}"`);
  const planId = o.id ?? defaultPlanId(tasks.file);
  checkPlanIsNew(o.ws, planId);
  const model = wireDraftModel({
    workspaceRoot: o.ws,
    model: o.model,
    ticketPath: `.tickets/${planId}.plan.yaml`,
    scriptPath: o.script,
    env: process.env,
  });
  const checks = wireTicketChecks(o.ws);
  try {
    const draft = await draftPlan(
      { model, clock: systemClock, ...checks },
      { tasks, ...(requirements ? { requirements } : {}), planId, existingTicketIds: workspaceTicketIds(o.ws) },
      signal,
      { onTask: (task, i, total) => io.err(`drafting ${task.id} (${i + 1} of ${total}): ${task.text}`) },
    );
    const written = writePlanDraft(o.ws, draft);
    report(draft, written, o.json, io);
    return draft.plan.tickets.length === draft.list.tasks.length ? EXIT.passed : EXIT.error;
  } finally {
    checks.diagnostics?.dispose?.();
  }
}

/** What the draft made, on standard error line by line (the plan's text on standard output), or as one JSON object. */
function report(draft: PlanDraft, written: string[], json: boolean, io: Io): void {
  const inPlan = draft.plan.tickets.length > 0;
  if (json) {
    io.out(
      JSON.stringify(
        {
          plan: inPlan ? draft.planPath : undefined,
          tickets: draft.tickets.map(({ text: _text, ...t }) => t),
          failed: draft.failed,
          notes: draft.plan.source?.notes ?? [],
          written,
        },
        null,
        2,
      ),
    );
    return;
  }
  for (const t of draft.tickets) {
    io.err(`${t.taskId}: ${t.ok ? 'drafted' : 'drafted with errors, left out of the plan:'} ${t.path} (${t.record.summary})`);
    for (const f of t.findings) io.err(`${t.path}: ${f.severity} at ${f.path}: ${f.message}`);
  }
  for (const f of draft.failed) io.err(`${f.taskId}: no ticket: ${f.why}`);
  for (const note of draft.plan.source?.notes ?? []) io.err(`note: ${note}`);
  if (!inPlan) {
    io.err(`no task has a valid ticket, so no plan was written`);
    return;
  }
  io.out(draft.planText.replace(/\n$/, ''));
  io.err(`wrote ${written.join(', ')}; nothing has run: read the drafts, then ticket-runner plan run ${draft.planPath}`);
}
