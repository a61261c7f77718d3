/**
 * The core of Ticket Runner: a ticket taken to verified code, with no editor, file system or
 * process of its own; it reaches the world through `ports/`. Its layers, bottom first; each
 * imports only the layers above it in this list (dependency-cruiser checks it in `npm run lint`):
 *
 *   errors.ts, schema/  what the run talks about: tickets, manifests, test plans, checks, events
 *   ports/              the interfaces the adapters (src/node, src/vscode) implement
 *   run/                the event log, its codec, the reducer and its projections (report, liveness, cost)
 *   recovery/           the recovery policies the stages call: anomaly scores, budgets, the rung ladder
 *   stages/             one folder or file per stage: ticket, manifest, materializer, ops, coder,
 *                       checks, debugger, router, gates, repair; `context.ts` is what each stage gets
 *   loop/               the run itself: start, attempts, resolve, resume, rollback
 *
 * This file is the core's entry for the hosts (the CLI, the extension): a run from start to end.
 */
export { startRun, type RunOptions } from './loop/runTicket';
export { resolveCorrection, type ResolveOptions } from './loop/resolveCorrection';
export { type RunResult } from './loop/runFrom';
export { resumeRun, type ResumeOptions } from './loop/resumeRun';
export { earlierChanges, leftoverRuns, leftoverWords, planRollback, rollbackRun, RollbackConflictError, rollbackCommands, stillInWorkspace, storedRuns, type LeftoverOptions, type LeftoverRun, type RollbackPlan } from './loop/rollback';
export type { PipelineDeps } from './stages/context';
