import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { PipelineDeps } from '../../src/core/stages/common/context';
import type { GateSettings } from '../../src/core/stages/common/gateConfig';
import { resolveCorrection, rollbackRun, startRun, type RunResult } from '../../src/core';
import { decodeLog, wholeLog } from '../../src/core/run/logCodec';
import type { RunState } from '../../src/core/run/reducer';
import type { RunEvent } from '../../src/core/schema/events';
import { withRunResources, type WiredDeps } from '../../src/node/runResources';
import { wireNodeDeps, type WireOptions } from '../../src/node/wire';
import { copyFixture, type FixtureName } from './tempWorkspace';

/**
 * The scenario suites' one way to drive a fixture ticket: the headless wiring with the
 * scripted model on a workspace copy, an optional patch of the dependencies (a throwing
 * port, a fault), and the run's resources released after each command (`withRun`).
 */
export interface ScenarioOptions {
  attempts?: number;
  gates?: GateSettings;
  patch?: (deps: PipelineDeps) => void;
  /** Wiring options: `withoutSandbox` for what must hold on a machine with no OS sandbox. */
  wire?: Partial<WireOptions>;
}

/**
 * A run's resources as the CLI and the editor open them: the workspace lock, the wiring, and
 * the release (language services, workers, the jail's processes) however the body ends.
 */
export function withRun<T>(wire: WireOptions, body: (deps: WiredDeps) => Promise<T>): Promise<T> {
  // A fixture copy is the test's own: there is no stale lock in it worth a warning.
  return withRunResources(
    { workspaceRoot: wire.workspaceRoot, holder: 'a test', warn: () => undefined, wire: () => wireNodeDeps(wire) },
    body,
  );
}

export function withScriptedDeps<T>(
  root: string,
  ticketPath: string,
  body: (deps: PipelineDeps) => Promise<T>,
  o: ScenarioOptions = {},
): Promise<T> {
  return withRun(
    { workspaceRoot: root, model: 'scripted', ticketPath, env: {}, ...(o.gates ? { gates: o.gates } : {}), ...o.wire },
    (deps) => {
      o.patch?.(deps);
      return body(deps);
    },
  );
}

export function runTicket(root: string, id: string, o: ScenarioOptions = {}): Promise<RunResult> {
  const ticketPath = `.tickets/${id}.ticket.json`;
  return withScriptedDeps(
    root,
    ticketPath,
    (deps) => startRun(deps, { ticketPath, budget: { attempts: o.attempts ?? 3 }, signal: new AbortController().signal }),
    o,
  );
}

/** `o.requestId`: the request the operator was shown, as the editor's Accept passes it. */
export function resolveRun(
  root: string,
  r: RunResult,
  decision: 'accept' | 'reject',
  reason?: string,
  o: ScenarioOptions & { requestId?: string } = {},
): Promise<RunResult> {
  // The scripted model reads on from the calls the run made, as the CLI and the editor wire it.
  return withScriptedDeps(
    root,
    r.state.ticketPath,
    (deps) =>
      resolveCorrection(deps, r.runId, { decision, reason, by: 'test', signal: new AbortController().signal, requestId: o.requestId }),
    { ...o, wire: { continuesRun: r.runId, ...o.wire } },
  );
}

export function rollback(root: string, runId: string): Promise<RunResult> {
  return withRun({ workspaceRoot: root, model: 'none', env: {} }, (deps) => rollbackRun(deps, runId));
}

/** How many calls the run made to a model role. */
export const callsOf = (s: RunState, role: string): number => s.modelCalls.filter((c) => c.role === role).length;

/** A run's events, read back from its log on disk as every host reads them. */
export function logEvents(root: string, runId: string): RunEvent[] {
  const file = path.join(root, '.ticket-runner', 'runs', runId, 'events.jsonl');
  return wholeLog(decodeLog(readFileSync(file, 'utf8'), file), file).events;
}

/** The log's renderings of the tests and the accepted corrections between them, in order. */
export function materializations(events: readonly RunEvent[]): string[] {
  return events
    .filter((e) => e.type === 'tests.materialized' || e.type === 'correction.accepted')
    .map((e) => (e.type === 'tests.materialized' ? `materialized:${e.framework}:${e.files.map((f) => f.path).join(',')}` : e.type));
}

/** Every gate's run, in order, as `gate:status` (`@gate` when it ran after that gate's repair). */
export const gateRuns = (s: RunState): string[] =>
  s.gates.map((g) => `${g.gate}:${g.status}${g.afterRepairOf ? `@${g.afterRepairOf}` : ''}`);
/** The same, without the gates the test did not enable. */
export const gatesRan = (s: RunState): string[] => gateRuns(s).filter((g) => !g.endsWith(':skipped'));

/** A fresh copy of a fixture for each test of the suite, disposed after it, and a reader of its files. */
export function freshCopyEachTest(fixture?: FixtureName): { readonly root: string; read: (rel: string) => string } {
  let copy: ReturnType<typeof copyFixture> | undefined;
  beforeEach(() => {
    copy = copyFixture(fixture);
  });
  afterEach(() => copy?.dispose());
  const ws = {
    get root(): string {
      if (!copy) throw new Error('the fixture copy exists only inside a test');
      return copy.root;
    },
    read: (rel: string) => readFileSync(path.join(ws.root, rel), 'utf8'),
  };
  return ws;
}
