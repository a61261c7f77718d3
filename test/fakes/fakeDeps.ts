import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { TestRunRequest } from '../../src/core/ports/checks';
import type { ModelPort } from '../../src/core/ports/model';
import type { PipelineDeps } from '../../src/core/stages/common/context';
import type { GateSettings } from '../../src/core/stages/common/gateConfig';
import { ModelScript, ScriptedModel, scriptPathFor, type ScriptStart } from '../../src/node/models/scripted';
import { sha256 } from './candidateKey';
import { FakeClock } from './fakeClock';
import { memoryRunStore } from './memoryRunStore';
import { FIXTURES } from './memoryWorkspace';
import { RecordedDiagnostics } from './recordedDiagnostics';
import { recordedGates } from './recordedGates';
import { RecordedLint } from './recordedLint';
import { RecordedOps } from './recordedOps';
import { RecordedParser } from './recordedParser';
import { RecordedTestRunner } from './recordedTestRunner';
import { RecordedWorld } from './recordedWorld';

/**
 * The pure tier's wiring (what src/node/wire.ts is for a real run): a fixture in memory, the
 * recorded checkers, a fake clock and store, and the scripted model. Nothing starts a process.
 */

export type Checker = 'parser' | 'diagnostics' | 'lint' | 'ops';

export interface FakeOptions {
  /** Checkers the run has no port for, as a workspace without the tool. */
  without?: Checker[];
  clock?: FakeClock;
  during?: (request: TestRunRequest, signal: AbortSignal) => Promise<void>;
  /** The end-of-ticket gates, their own ports recorded like the checkers (none by default). */
  gates?: GateSettings;
}

export interface FakeRig {
  deps: PipelineDeps;
  world: RecordedWorld;
  clock: FakeClock;
  store: ReturnType<typeof memoryRunStore>;
  tests: RecordedTestRunner;
  /** The same world with another model: a decision or a resume goes on with the script where the run left it. */
  withModel(model: ModelPort): PipelineDeps;
}

export function fakeDeps(fixture: string, model: ModelPort, o: FakeOptions = {}): FakeRig {
  const world = RecordedWorld.of(fixture);
  const clock = o.clock ?? new FakeClock();
  const store = memoryRunStore(sha256);
  const tests = new RecordedTestRunner(world, o.during);
  const without = new Set(o.without ?? []);
  const deps: PipelineDeps = {
    workspace: world.workspace,
    workspaceRoot: world.workspaceRoot,
    store,
    clock,
    hash: sha256,
    model,
    tests,
    parser: without.has('parser') ? undefined : new RecordedParser(world),
    diagnostics: without.has('diagnostics') ? undefined : new RecordedDiagnostics(world),
    lint: without.has('lint') ? undefined : new RecordedLint(world),
    ops: without.has('ops') ? undefined : new RecordedOps(world),
    ...(o.gates ? { gates: recordedGates(world, o.gates) } : {}),
  };
  return { deps, world, clock, store, tests, withModel: (m) => ({ ...deps, model: m }) };
}

/** A fixture ticket's own script, as the scripted provider reads it beside the ticket. */
export function fixtureScript(fixture: string, ticket: string): ModelScript {
  const file = path.join(FIXTURES, fixture, scriptPathFor(ticketPathOf(ticket)));
  return ModelScript.parse(JSON.parse(readFileSync(file, 'utf8')));
}

export const ticketPathOf = (ticket: string): string => `.tickets/${ticket}.ticket.json`;

/** The scripted provider over a script (the fixture's own by default), its `{ from }` files read beside the fixture's tickets. */
export function scripted(
  fixture: string,
  ticket: string,
  script: Partial<ModelScript> = fixtureScript(fixture, ticket),
  start?: ScriptStart,
): ScriptedModel {
  const full = ModelScript.parse({ coder: [], debugger: [], ...script });
  const dir = path.join(FIXTURES, fixture, '.tickets');
  return new ScriptedModel(full, (from) => readFileSync(path.resolve(dir, from), 'utf8'), `${ticket} (in memory)`, start);
}
