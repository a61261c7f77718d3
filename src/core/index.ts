/**
 * The core of Ticket Runner: a ticket taken to verified code, with no editor, file system or
 * process of its own; it reaches the world through `ports/`. Its layers, bottom first; each
 * imports only the layers above it in this list (dependency-cruiser checks it in `npm run lint`):
 *
 *   errors.ts, schema/  what the run talks about: tickets, manifests, test plans, checks, events
 *   ports/              the interfaces the adapters (src/node, src/vscode) implement
 *   run/                the event log, its codec, the reducer and its projections (report, liveness, cost)
 *   recovery/           the recovery policies the stages call: anomaly scores, budgets, the rung ladder
 *   ticket/             the ticket format: read, write, parse, template, ids, `refs` suggestions
 *   stages/             one folder per stage, in the same order: common/ (what they share, `context.ts`
 *                       included), materializer, manifest, proposals, ops, checks, coder, debugger,
 *                       gates, router, authoring
 *   loop/               the run itself: start, attempts, resolve, resume, rollback
 *   eval/               the routing evaluation over the routing corpus
 *
 * This file is the core's entry for the hosts (the CLI, the extension): a run from start to end.
 */
export { startRun, type RunOptions } from './loop/runTicket';
export { resolveCorrection, type ResolveOptions } from './loop/resolveCorrection';
export { type RunResult } from './loop/runFrom';
export { resumeRun, type ResumeOptions } from './loop/resumeRun';
export {
  earlierChanges,
  leftoverRuns,
  leftoverWords,
  planRollback,
  rollbackRun,
  RollbackConflictError,
  rollbackCommands,
  stillInWorkspace,
  storedRuns,
  type LeftoverOptions,
  type LeftoverRun,
  type RollbackPlan,
} from './loop/rollback';
export type { PipelineDeps } from './stages/common/context';
