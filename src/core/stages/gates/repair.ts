import { judgeHeldOut, runJudgingTests } from '../checks/heldOutRun';
import { describeTampering } from '../common/oraclePins';
import { CancelledError, errorMessage } from '../../errors';
import { describeStop } from '../../run/views/report';
import type { TestRunResult } from '../../schema/checks';
import type { FileRef } from '../../schema/events';
import type { GateName, RegressionResult, RepairStage } from '../../schema/gates';
import { parseCoderAnswer } from '../coder/coderAnswer';
import { RunStop } from '../../recovery/runStop';
import { callModel } from '../common/modelCall';
import { CODER_SYSTEM } from '../coder/prompt';
import { writeThroughGate } from '../coder/writeGate';
import { stopOnKeptEdits, writeOverUserEdits } from '../common/userEdits';
import type { GateEnv, GateOutcome } from './gateRuns';
import { readFiles } from '../common/scope';
import { repairPrompt } from './prompts';

export interface RepairEnv extends GateEnv {
  /** Runs a gate again and records it; `afterRepairOf` is the gate whose repair it follows. */
  rerun: (gate: GateName, afterRepairOf: GateName) => Promise<GateOutcome>;
  /** The gates that passed before this one: a repair may not break them. */
  recheck: readonly GateName[];
  /** The last test run before the repair: the mini regression's reference. */
  baseline?: TestRunResult;
}

interface Progress {
  stage: RepairStage;
  /** Files the repair wrote, with their content before it (null: it created them). */
  written: { path: string; before: string | null }[];
  refs: FileRef[];
  regression?: RegressionResult;
}

/**
 * A stop that comes from outside the gates (the operator's cancel, a run budget, a file the user
 * changed that the repair would write over) is not an error of a gate or a repair: it ends the
 * run its own way. Everything else is caught by the
 * fail-safes.
 */
export function stopsTheRun(env: GateEnv, err: unknown): boolean {
  if (env.ctx.signal.aborted || err instanceof CancelledError) return true;
  return err instanceof RunStop && (err.stop.kind === 'cancelled' || err.stop.kind === 'budgetExceeded' || err.stop.kind === 'userEdited');
}

/** An error as the log records it; a RunStop's message is only its kind, so its typed stop is described. */
export function errorRecord(err: unknown): { name: string; message: string } {
  if (err instanceof RunStop) return { name: 'RunStop', message: describeStop(err.stop) };
  return { name: err instanceof Error ? err.name : 'Error', message: errorMessage(err) };
}

/** The mini regression: every test that ran before must pass now, those that failed included. */
export function compareRegression(baseline: TestRunResult | undefined, after: TestRunResult): RegressionResult {
  const required = (baseline?.cases ?? []).filter((c) => c.status !== 'skipped').map((c) => c.name);
  const status = new Map(after.cases.map((c) => [c.name, c.status] as const));
  const failed = required.filter((n) => status.get(n) !== 'passed');
  // A test that was not there before and fails now is a regression all the same.
  for (const c of after.cases) if (c.status === 'failed' && !failed.includes(c.name)) failed.push(c.name);
  if (after.status !== 'passed' && failed.length === 0) failed.push(`(the run itself: ${after.status})`);
  return { required, failed, status: after.status };
}

/** The steps of one repair pass; returns why it failed, or undefined when it is done. */
async function steps(env: RepairEnv, failed: GateOutcome, p: Progress): Promise<string | undefined> {
  const { ctx, attempt } = env;
  const { manifest, deps, log } = ctx;
  const complaints = failed.complaints ?? { lines: [], files: [], blockers: [] };
  const writable = new Set(manifest.scope.write.map((f) => f.path));

  p.stage = 'prompt';
  const prompt = repairPrompt({
    manifest,
    gate: failed.gate,
    files: await readFiles(deps.workspace, [...writable]),
    tests: await readFiles(deps.workspace, manifest.testFiles),
    readOnly: await readFiles(
      deps.workspace,
      complaints.files.filter((f) => !writable.has(f)),
    ),
    complaints: complaints.lines,
    blockers: complaints.blockers,
  });

  p.stage = 'model';
  const response = await callModel(ctx, { role: 'coder', attempt, system: CODER_SYSTEM, messages: [{ role: 'user', content: prompt }] });
  const answer = parseCoderAnswer(response.text);
  if (!answer.length) return 'the repair answered with no file';

  p.stage = 'write';
  const { written, kept } = await writeThroughGate({ deps, log, manifest }, attempt, answer, { skipUnchanged: true, by: 'repair' });
  for (const w of written) {
    p.written.push({ path: w.path, before: w.before });
    p.refs.push({ path: w.path, hash: w.afterHash });
  }
  if (written.length)
    await log.emit({
      type: 'files.written',
      attempt,
      by: 'repair',
      files: written.map((w) => ({ path: w.path, before: w.beforeHash, after: w.afterHash })),
    });
  stopOnKeptEdits(kept);
  if (!written.length) return 'the repair changed no file it may write';

  p.stage = 'parse';
  if (deps.parser) {
    for (const f of answer.filter((a) => p.refs.some((r) => r.path === a.path) && /\.[cm]?[jt]sx?$/.test(a.path))) {
      const problems = await deps.parser.parse(f.path, f.content);
      if (problems.length)
        return `the repair does not parse: ${problems
          .slice(0, 3)
          .map((x) => `${x.file}:${x.line}:${x.column} ${x.kind} "${x.text}"`)
          .join('; ')}`;
    }
  }

  p.stage = 'regression';
  const { result: tests, tampered, heldOut } = await runJudgingTests(ctx, attempt);
  p.regression = compareRegression(env.baseline, tests);
  if (tampered.length) return `the repair's code changed the oracle while the tests ran: ${describeTampering(tampered).join(' ')}`;
  if (p.regression.failed.length) {
    const why = tests.cases.filter((c) => c.status === 'failed').map((c) => `${c.name}${c.message ? `: ${c.message.split('\n')[0]}` : ''}`);
    return `the mini regression failed: ${p.regression.failed.join(', ')} did not pass${why.length ? ` (${why.slice(0, 3).join('; ')})` : ''}`;
  }
  // Generalize, as for an attempt: a repair shaped to the visible cases does not pass.
  const tooNarrow = tests.status === 'passed' ? await judgeHeldOut(ctx, attempt, heldOut) : undefined;
  if (tooNarrow)
    return `the repair is too narrow: held-out cases fail${
      tooNarrow.some((c) => c.criterion)
        ? ` (${tooNarrow
            .map((c) => c.criterion)
            .filter(Boolean)
            .join(', ')})`
        : ''
    }`;

  p.stage = 'gate';
  const again = await env.rerun(failed.gate, failed.gate);
  if (again.status !== 'passed') return `the ${failed.gate} gate still fails after the repair: ${again.detail}`;

  p.stage = 'recheck';
  for (const gate of env.recheck) {
    const o = await env.rerun(gate, failed.gate);
    if (o.status === 'failed' || o.status === 'error') return `the repair broke the ${gate} gate: ${o.detail}`;
  }
  p.stage = 'done';
  return undefined;
}

/** Puts back what the repair wrote, so a failed repair leaves the code as the gate found it. */
async function revert(env: GateEnv, p: Progress): Promise<void> {
  const { deps, log } = env.ctx;
  const files = [];
  const kept: string[] = [];
  for (const w of [...p.written].reverse()) {
    const now = await deps.workspace.readFile(w.path);
    const result = await writeOverUserEdits(env.ctx, { path: w.path, content: w.before, by: 'repair', attempt: env.attempt });
    if (result.kept) kept.push(w.path);
    else if (result.content !== now)
      files.push({ path: w.path, before: now === null ? null : await log.putBlob(now), after: await log.putBlob(result.content ?? '') });
  }
  if (files.length) await log.emit({ type: 'files.written', attempt: env.attempt, by: 'repair', files });
  stopOnKeptEdits(kept);
}

/**
 * The one code-only Coder repair pass of a failing gate, fail-safe: whatever goes wrong inside
 * it (a model error, a write error, a broken answer, a regression, the gate still failing)
 * ends in `repair.attempted` with `ok: false` and the full context, and the files it wrote put
 * back. The caller then ends the run exactly as the failing gate would have. Only a stop from
 * outside (cancel, a run budget) passes through.
 */
export async function repairGate(env: RepairEnv, failed: GateOutcome): Promise<boolean> {
  const p: Progress = { stage: 'prompt', written: [], refs: [] };
  let why: string | undefined;
  let error: { name: string; message: string } | undefined;
  try {
    why = await steps(env, failed, p);
  } catch (err) {
    if (stopsTheRun(env, err)) throw err;
    error = errorRecord(err);
    why = `an error in the repair path (${p.stage}): ${error.message}`;
  }
  const ok = why === undefined;
  let reverted = false;
  if (!ok && p.written.length) {
    try {
      await revert(env, p);
      reverted = true;
    } catch (err) {
      if (stopsTheRun(env, err)) throw err;
      why = `${why ?? ''}; putting back the repair's files failed too: ${errorMessage(err)}`;
    }
  }
  const complaints = failed.complaints ?? { lines: [], files: [], blockers: [] };
  await env.ctx.log.emit({
    type: 'repair.attempted',
    gate: failed.gate,
    ok,
    detail: ok ? `the ${failed.gate} gate passes after the repair, and so do the tests and the gates before it` : why!,
    files: p.refs,
    stage: p.stage,
    error,
    complaints: [...complaints.lines, ...complaints.blockers.map((b) => `${b.file ? `${b.file}: ` : ''}${b.claim}`)],
    regression: p.regression,
    reverted,
  });
  return ok;
}
