import type { TestRunResult } from '../../schema/checks';
import type { CorrectionRequest, MachineFact } from '../../schema/correction';
import { GATE_NAMES, GATE_NOT_ENABLED, type GateName } from '../../schema/gates';
import { type RunContext } from '../common/context';
import { RunStop } from '../../recovery/runStop';
import { emitCorrection, nextCorrectionId } from '../proposals/correctionRequests';
import { REPAIRABLE } from '../common/gateConfig';
import {
  buildGate,
  coverageGate,
  implementationReviewGate,
  lintGate,
  projectTestsGate,
  testReviewGate,
  typecheckGate,
  type GateEnv,
  type GateOutcome,
} from './gateRuns';
import { errorRecord, repairGate, stopsTheRun } from './repair';

export { DEFAULT_GATES, parseGateList, type GateDeps, type GateSettings } from '../common/gateConfig';

const RUNS: Record<GateName, (env: GateEnv) => Promise<Omit<GateOutcome, 'gate' | 'durationMs'>>> = {
  typecheck: typecheckGate,
  lint: lintGate,
  build: buildGate,
  projectTests: projectTestsGate,
  implementationReview: implementationReviewGate,
  testReview: testReviewGate,
  coverage: coverageGate,
};

/** The facts only the gates raise: a correction with one of them resumes from the tests step. */
const GATE_FACTS: ReadonlySet<MachineFact['kind']> = new Set(['criterionNotCovered', 'changedLinesUncovered']);

/** Whether a correction request came from the end-of-ticket gates (not from the router). */
export function raisedByGates(request: CorrectionRequest): boolean {
  return GATE_FACTS.has(request.fact.kind);
}

/**
 * Runs one gate and records it as a `gate.ran` event. A gate that throws could not decide: it
 * is recorded as `error`, with what it threw (a stop from outside, or a script that ran out,
 * still passes through), and the caller fails the run on it unless the gate is optional.
 */
async function runGate(env: GateEnv, gate: GateName, afterRepairOf?: GateName): Promise<GateOutcome> {
  const now = () => env.ctx.deps.clock.now().getTime();
  const started = now();
  let found: Omit<GateOutcome, 'gate' | 'durationMs'>;
  try {
    found = await RUNS[gate](env);
  } catch (err) {
    if (stopsTheRun(env, err)) throw err;
    const e = errorRecord(err);
    found = { status: 'error', detail: `the gate could not run: ${e.name}: ${e.message}` };
  }
  const outcome: GateOutcome = { gate, ...found, durationMs: now() - started };
  await env.ctx.log.emit({
    type: 'gate.ran',
    gate,
    status: outcome.status,
    detail: outcome.detail,
    repaired: afterRepairOf === gate,
    afterRepairOf,
    durationMs: outcome.durationMs,
    evidence: outcome.evidence,
    optional: env.settings.optional?.includes(gate) || undefined,
  });
  return outcome;
}

/** The latest test run of the log: what the gates' mini regressions compare against. */
function lastTests(ctx: RunContext): TestRunResult | undefined {
  for (const e of [...ctx.log.events].reverse()) if (e.type === 'tests.ran') return e.result;
  return undefined;
}

/** Hands a gate's corrected test plan to the operator; the run waits for the decision. */
async function requestCorrection(ctx: RunContext, outcome: GateOutcome): Promise<never> {
  const c = outcome.correction!;
  const id = nextCorrectionId(ctx);
  const request: CorrectionRequest = {
    id,
    target: 'testPlan',
    fact: c.fact,
    claim: c.claim ? { text: c.claim, evidence: [] } : undefined,
    proposal: c.proposal,
  };
  await emitCorrection(ctx, request);
  throw new RunStop({ kind: 'correctionRequested', requestId: id, route: 'test' }, 'needsOperator');
}

/**
 * The end-of-ticket gates, on the cumulative diff, after the last attempt passed: each in
 * GATE_NAMES order, each a `gate.ran` event (a gate that is not enabled says so). A failing
 * type-check, lint, build or Implementation Review gets one fail-safe repair pass, then runs
 * again and its verdict stands; the Test Reviewer and the coverage gate hand a corrected test
 * plan to the operator. Returns when every gate passed; a failure is a RunStop.
 */
export async function runGates(ctx: RunContext, attempt: number): Promise<void> {
  const settings = ctx.deps.gates;
  if (!settings) return;
  const env: GateEnv = { ctx, settings, attempt };
  const enabled = new Set(settings.enabled);
  const passed: GateName[] = [];
  for (const gate of GATE_NAMES) {
    if (!enabled.has(gate)) {
      await ctx.log.emit({ type: 'gate.ran', gate, status: 'skipped', detail: GATE_NOT_ENABLED, repaired: false, durationMs: 0 });
      continue;
    }
    const outcome = await runGate(env, gate);
    // Fail closed: a gate that could not judge is never a pass, unless the operator made it optional.
    if (outcome.status === 'error' && !settings.optional?.includes(gate))
      throw new RunStop({ kind: 'gateError', gate, message: outcome.detail }, 'failed');
    if (outcome.status === 'failed') {
      if (!REPAIRABLE.has(gate)) await requestCorrection(ctx, outcome);
      const ok = await repairGate(
        { ...env, rerun: (g, after) => runGate(env, g, after), recheck: [...passed], baseline: lastTests(ctx) },
        outcome,
      );
      if (!ok) throw new RunStop({ kind: 'gateFailed', gate }, 'failed');
    }
    // A failed gate got here only through a repair that made it pass.
    if (outcome.status === 'passed' || outcome.status === 'failed') passed.push(gate);
  }
}
