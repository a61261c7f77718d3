import type { OwnerProbe } from '../run/liveness';
import type { RunState } from '../run/reducer';
import { STATUS_ICONS, type RowStatus, type TreeRow } from '../run/views/treeRow';
import { durationWords } from '../run/views/time';
import type { Plan } from '../schema/plan';
import { planProgress, type PlanProgress, type PlanTicketProgress, type PlanTicketState } from './planProgress';
import { dollars, planStateWords, planVerdictWords, ticketTime } from './planReport';

/**
 * The plans view's tree as plain data, a pure function of the plan and its tickets' runs, so it is
 * tested without an editor; plansTree.ts maps each node to a vscode.TreeItem.
 */
export interface PlanNode extends TreeRow {
  /** `plan.<verdict>`, `plan.invalid` or `planTicket.<state>`. */
  contextValue: string;
  /** The plan's file, from the workspace root: what Run Plan and Resume Plan act on. */
  planFile: string;
  /** What a click shows: the ticket's newest run of the plan, else the file (the ticket's, or a broken plan's). */
  opens?: { runId: string } | { file: string };
  children: PlanNode[];
}

/** A plan file read and checked, with the file and title of each of its tickets by id. */
export interface ReadPlan {
  file: string;
  plan: Plan;
  tickets: ReadonlyMap<string, { file: string; title: string }>;
}

/** A plan's verdict in the few words a row has room for. */
function verdictShort(p: PlanProgress): string {
  const of = `${p.tickets.filter((t) => t.state === 'passed').length} of ${p.tickets.length} passed`;
  switch (p.verdict) {
    case 'passed':
      return 'passed';
    case 'notStarted':
      return 'not run yet';
    case 'running':
      return `running: ${of}`;
    case 'open':
      return `not finished: ${of}`;
    case 'paused':
      // Which ticket waits for the user is its own row's word (and the tooltip's): the row stays short.
      return `paused: ${of}`;
  }
}

/** A paused ticket or plan is stopped on purpose, to be resumed: not an error, and not a plain circle. */
const PAUSED = { icon: 'debug-pause', color: 'editorWarning.foreground' };

const VERDICT_ICONS: Record<PlanProgress['verdict'], { icon: string; color?: string }> = {
  passed: STATUS_ICONS.passed,
  running: STATUS_ICONS.running,
  paused: PAUSED,
  open: STATUS_ICONS.pending,
  notStarted: { icon: 'list-ordered' },
};

const TICKET_STATUS: Record<Exclude<PlanTicketState, 'paused'>, RowStatus> = {
  passed: 'passed',
  failed: 'failed',
  error: 'error',
  waiting: 'needsOperator',
  running: 'running',
  cancelled: 'cancelled',
  interrupted: 'interrupted',
  ready: 'pending',
  queued: 'pending',
};

const spoken = (...parts: (string | undefined)[]) => parts.filter(Boolean).join(', ');

function ticketNode(parent: string, t: PlanTicketProgress, read: ReadPlan): PlanNode {
  const words = planStateWords(t);
  const ms = ticketTime(t);
  // "waits for TAGS-1" and "paused: TAGS-1 did not pass" name whom it waits for already.
  const after = t.after.length && t.state !== 'queued' && t.state !== 'paused' ? `after ${t.after.join(', ')}` : undefined;
  const facts = t.run ? [ms === undefined ? undefined : durationWords(ms), dollars(t.run.costUsd)] : [];
  // At the sidebar's default width a row shows about thirty characters: what it waits for comes
  // first, and a passed ticket's state is its green check alone (the spoken label says it).
  const rowWords = t.state === 'passed' ? undefined : t.state === 'waiting' ? 'waits for you' : words;
  const description = [after, rowWords, ...facts].filter(Boolean).join(' · ');
  const ticket = read.tickets.get(t.id);
  const tooltip = [
    `${t.id}${ticket ? `: ${ticket.title}` : ''}`,
    words,
    t.after.length ? `After ${t.after.join(', ')}: it starts on the code they left.` : 'It waits for no other ticket of the plan.',
    ...t.upstreamCorrections.map((u) => `${u.ticketId} was corrected since the plan was written: ${u.what}`),
    ...(t.run
      ? [
          `Run ${t.run.runId}: ${t.run.attempts} attempt${t.run.attempts === 1 ? '' : 's'}, ${dollars(t.run.costUsd)}${ms === undefined ? '' : `, ${durationWords(ms)}`}`,
        ]
      : []),
  ].join('\n');
  return {
    id: `${parent}/${t.id}`,
    label: t.id,
    description,
    tooltip,
    accessibleLabel: spoken(t.id, words, after, ...facts),
    ...(t.state === 'paused' ? PAUSED : STATUS_ICONS[TICKET_STATUS[t.state]]),
    contextValue: `planTicket.${t.state}`,
    planFile: read.file,
    ...(t.run ? { opens: { runId: t.run.runId } } : ticket ? { opens: { file: ticket.file } } : {}),
    children: [],
  };
}

/**
 * A plan's node: its verdict, and its tickets in the order they run, each with its state, what it
 * waits for, and once run its time and cost. The state is `planProgress`'s reading of the runs.
 */
export function planNode(read: ReadPlan, runs: readonly RunState[], alive: OwnerProbe): PlanNode {
  const progress = planProgress(read.plan, read.file, runs, alive);
  const id = `plan:${read.file}`;
  const description = verdictShort(progress);
  return {
    id,
    label: read.plan.id,
    description,
    tooltip: [read.plan.title, planVerdictWords(progress), read.file].join('\n'),
    accessibleLabel: spoken(`plan ${read.plan.id}`, description),
    ...VERDICT_ICONS[progress.verdict],
    contextValue: `plan.${progress.verdict}`,
    planFile: read.file,
    children: progress.tickets.map((t) => ticketNode(id, t, read)),
  };
}

/** A plan file that cannot be run as it is: one row that says why, and a click opens the file. */
export function brokenPlanNode(file: string, problem: string): PlanNode {
  const name = file.split('/').pop() ?? file;
  // The row is the file already: its name is not said twice.
  const why = problem.startsWith(`${file}: `) ? problem.slice(file.length + 2) : problem;
  return {
    id: `plan:${file}`,
    label: name,
    description: why,
    tooltip: `${file} cannot run as it is:\n${why}`,
    accessibleLabel: spoken(`plan file ${name}`, why),
    ...STATUS_ICONS.error,
    contextValue: 'plan.invalid',
    planFile: file,
    opens: { file },
    children: [],
  };
}
