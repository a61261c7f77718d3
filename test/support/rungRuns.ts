import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { PipelineDeps } from '../../src/core/stages/common/context';
import { startRun, type RunResult } from '../../src/core';
import type { ModelPort } from '../../src/core/ports/model';
import type { RunState } from '../../src/core/run/reducer';
import type { Budget, RecoveryPolicy, RunEvent } from '../../src/core/schema/events';
import type { ModelScript, ScriptedAnswer } from '../../src/node/models/scripted';
import { FileRunStore } from '../../src/node/store/fileRunStore';
import { withRun } from './scenario';

/** Helpers for the recovery tests: scripts written into a fixture copy, runs, and what they fired. */

export const ANSWERS = '.tickets/answers';

/** A recorded answer of the fixture, by ticket and file name. */
export function answer(root: string, ticket: string, file: string): string {
  return readFileSync(path.join(root, ANSWERS, ticket, file), 'utf8');
}

/** BLOG-5's recorded answer with its import in place: the language service's code fix is not needed. */
export const summaryWithImport = (root: string): string =>
  `import { getPosts } from '../store/postStore';\n${answer(root, 'BLOG-5', 'attempt1.ts')}`;

/** For runs whose subject is not the checks: no language service and no linter, for speed. */
export const light = { adjust: (d: PipelineDeps): PipelineDeps => ({ ...d, diagnostics: undefined, lint: undefined }) };

/** Replaces a ticket's script in the workspace copy. */
export function writeScript(root: string, ticket: string, script: Partial<ModelScript>): void {
  writeFileSync(path.join(root, '.tickets', `${ticket}.script.json`), JSON.stringify({ coder: [], debugger: [], ...script }, null, 2));
}

export interface RunOptions {
  budget?: Budget;
  recovery?: Partial<RecoveryPolicy>;
  signal?: AbortSignal;
  /** A model built by the test (the real SDK against the fake server, a wrapped script). */
  modelPort?: ModelPort;
  /** Changes to the wired dependencies (a check left out to keep a test fast). */
  adjust?: (deps: PipelineDeps) => PipelineDeps;
}

/** Runs a ticket of the fixture copy with the real checks and the scripted (or given) model. */
export function runTicket(root: string, ticket: string, o: RunOptions = {}): Promise<RunResult> {
  const ticketPath = `.tickets/${ticket}.ticket.json`;
  // `adjust` may copy the deps: the wired ones, jail included, are what the release closes.
  return withRun({ workspaceRoot: root, model: o.modelPort ? 'none' : 'scripted', modelPort: o.modelPort, ticketPath, env: {} }, (wired) =>
    startRun(o.adjust ? o.adjust(wired) : wired, {
      ticketPath,
      budget: o.budget,
      recovery: o.recovery,
      signal: o.signal ?? new AbortController().signal,
    }),
  );
}

/** The rung receipts of a run, per attempt, in log order. */
export const rungsByAttempt = (s: RunState): number[][] => s.attempts.map((a) => a.rungs.map((r) => r.rung));

export const rungEvents = (events: readonly RunEvent[]) =>
  events.filter((e): e is Extract<RunEvent, { type: 'rung.fired' }> => e.type === 'rung.fired');

export const calls = (s: RunState, role: string) => s.modelCalls.filter((c) => c.role === role).length;

/** A run's events as its log on disk holds them. */
export async function loadEvents(root: string, runId: string): Promise<RunEvent[]> {
  const loaded = await new FileRunStore(root).load(runId);
  if (loaded.torn) throw new Error(`the log of ${runId} has a torn line: ${loaded.torn.error}`);
  return loaded.events;
}

/** BLOG-1's recorded diagnosis: its quotes are in the inputs of every attempt that follows the first. */
export function blog1Diagnosis(root: string, attempt: number): ScriptedAnswer {
  const script = JSON.parse(readFileSync(path.join(root, '.tickets/BLOG-1.script.json'), 'utf8')) as { debugger: ScriptedAnswer[] };
  const recorded = script.debugger[0]!;
  // Past attempt 1 the flagged guard is no longer in the latest implementation: it is quoted from the history.
  const structured = recorded.structured as { evidence: { source: string; file?: string; quote: string }[] };
  const evidence = structured.evidence.map((e) =>
    attempt > 1 && e.file === 'src/handlers/posts.ts' ? { source: 'history', quote: e.quote } : e,
  );
  return { ...recorded, structured: { ...structured, evidence }, expect: { attempt, promptIncludes: [] } };
}

/** Everything the Coder read in a run, by attempt: the system prompt and every message of every call. */
export async function coderTextByAttempt(root: string, runId: string, events: readonly RunEvent[]): Promise<Map<number, string>> {
  const store = new FileRunStore(root);
  const out = new Map<number, string>();
  for (const e of events) {
    if (e.type !== 'model.called' || e.role !== 'coder' || !e.prompt) continue;
    const r = JSON.parse(await store.getBlob(runId, e.prompt)) as { system: string; messages: { content: string }[] };
    out.set(e.attempt, [out.get(e.attempt) ?? '', r.system, ...r.messages.map((m) => m.content)].join('\n'));
  }
  return out;
}
