import type { RunContext } from '../common/context';
import { baselineFromLog, splitDiagnostics, splitLint } from './findingsBaseline';
import { judgeHeldOut, runJudgingTests } from './heldOutRun';
import type { TestRunResult } from '../../schema/checks';
import { unimplementedDeclarations } from '../ops/declared';
import { preCoderOverlays } from './preCoderCode';
import { attemptRegression, filesAlong } from './attemptRegression';
import { caseKey, changedByRun, testsReaching } from './projectTests';
import { impossibleExpectations, renderTypeProbe } from './typeProbe';
import type { FailureEvidence } from '../common/evidence';
import { isCodePath } from '../../schema/paths';
import { seenFilesOf } from '../common/userEdits';
import type { MachineFact } from '../../schema/correction';
import { heldOutContradiction } from './heldOutFacts';
import { awaitsTheChange } from './awaitedImports';
import { authoredTests } from '../../schema/testPlan';
import { prepareTests } from './prepareTests';

export interface CheckOutcome {
  passed: boolean;
  evidence: FailureEvidence;
  /**
   * A held-out case that contradicts a visible one (`heldOutContradiction`): the router's fact,
   * the operator's to read. Apart from the evidence, since it quotes the held-out case.
   */
  heldOutFact?: MachineFact;
}

/**
 * Loads the parser's grammars for the files in scope while the baseline runs: a parser's first
 * file otherwise pays for its start (a tenth of a second or more) after the first write, when
 * the run waits on it. Nothing waits on this, and a failure here is the first parse's to report.
 */
export function warmParser(ctx: RunContext): void {
  const code = [...ctx.manifest.scope.write.map((f) => f.path), ...ctx.manifest.testFiles].filter(isCodePath);
  if (!ctx.deps.parser?.warm || !code.length) return;
  try {
    void ctx.deps.parser.warm(code, ctx.signal).catch(() => undefined);
  } catch {
    // a port that breaks its word and throws: the first parse starts the parser, as without this
  }
}

/**
 * The post-write checks, in order: parse, diagnostics (with structural auto-fix first),
 * lint, tests. Each is an event. A check whose port is not wired is not in the pipeline.
 * Malformed code stops the chain: nothing after the parse can say anything useful.
 * `besideTests` is the caller's work to overlap with the tests of an attempt that can still
 * pass; it is dropped when the attempt fails.
 */
export async function runChecks(
  ctx: RunContext,
  attempt: number,
  changed: string[],
  besideTests?: () => Promise<{ drop(): void } | undefined>,
): Promise<CheckOutcome> {
  const { deps, log, manifest, signal } = ctx;
  // Durations on the run's clock, so a test's fake clock decides them too.
  const now = () => deps.clock.now().getTime();
  const elapsed = (t: number) => now() - t;
  const evidence: FailureEvidence = { parse: [], diagnostics: [], lint: [] };
  const baseline = baselineFromLog(ctx);
  const codeFiles = changed.filter(isCodePath);
  // A value the ticket declared that is still only its declaration: the code is not written yet.
  const unwritten = await unimplementedDeclarations(manifest.ops, (p) => deps.workspace.readFile(p));
  // The ticket's tests run after the checks below: the runner may get ready for them meanwhile,
  // for every code file the run has changed so far (the ops' too), which the tests may load.
  prepareTests(ctx, [...new Set([...codeFiles, ...changedByRun(ctx).filter(isCodePath)])]);

  if (deps.parser) {
    const t = now();
    for (const file of codeFiles) {
      const content = await deps.workspace.readFile(file);
      if (content !== null) evidence.parse.push(...(await deps.parser.parse(file, content)));
    }
    await log.emit({ type: 'check.parsed', attempt, ok: evidence.parse.length === 0, problems: evidence.parse, durationMs: elapsed(t) });
    if (evidence.parse.length) return { passed: false, evidence };
  }

  if (deps.diagnostics && codeFiles.length) {
    const t = now();
    const inScope = new Set(manifest.scope.write.map((f) => f.path));
    const before = new Map<string, string | null>();
    for (const f of inScope) before.set(f, await deps.workspace.readFile(f));
    // A structural fix never writes over the user's change: a file the user changed since the run
    // last read or wrote it is left to the next write of the run, which merges or keeps it.
    const seen = seenFilesOf(deps.workspace);
    const userChanged = new Set([...before].filter(([path, text]) => seen?.of(path) && seen.of(path)!.text !== text).map(([path]) => path));
    const fixable = codeFiles.filter((f) => !userChanged.has(f));
    const fixes = fixable.length
      ? await deps.diagnostics.autofix(fixable, (p) => inScope.has(p) && !userChanged.has(p), signal)
      : { applied: [], refused: [] };
    if (fixes.applied.length || fixes.refused.length) {
      await log.emit({ type: 'check.autofixed', attempt, applied: fixes.applied, refused: fixes.refused });
      evidence.refusedFixes = fixes.refused;
      const written = [];
      for (const [path, old] of before) {
        const now = await deps.workspace.readFile(path);
        if (now !== null && now !== old) {
          seen?.wrote(path, now);
          written.push({ path, before: old === null ? null : await log.putBlob(old), after: await log.putBlob(now) });
        }
      }
      if (written.length) await log.emit({ type: 'files.written', attempt, by: 'autofix', files: written });
    }
    // The rendered tests are always checked: their type errors against the new code are
    // the machine fact behind "test is wrong", and a just-rendered file is new to the service.
    const result = await deps.diagnostics.check([...new Set([...codeFiles, ...manifest.testFiles])], signal);
    // Only what the run introduced counts; the baseline's errors are shown apart.
    const { introduced, preExisting } = splitDiagnostics(
      baseline?.diagnostics ?? [],
      result.diagnostics.filter((d) => d.category === 'error'),
    );
    evidence.diagnostics = [...introduced, ...unwritten];
    evidence.preExisting = preExisting;
    await log.emit({
      type: 'check.diagnosed',
      attempt,
      ok: evidence.diagnostics.length === 0,
      checkedFiles: result.checkedFiles,
      diagnostics: [...result.diagnostics.filter((d) => !preExisting.includes(d)), ...unwritten],
      preExisting,
      durationMs: elapsed(t),
      checkedBy: result.checkedBy,
    });
  } else evidence.diagnostics.push(...unwritten);

  if (deps.lint) {
    const r = await deps.lint.lint(codeFiles, signal);
    const { introduced, preExisting } = splitLint(
      baseline?.lint ?? [],
      r.problems.filter((p) => p.severity === 'error'),
    );
    evidence.lint = introduced;
    const status = r.status === 'failed' && !introduced.length ? 'passed' : r.status;
    await log.emit({
      type: 'check.linted',
      attempt,
      status,
      problems: r.problems.filter((p) => !preExisting.includes(p)),
      preExisting,
      detail: r.detail,
    });
  }

  const beside = evidence.diagnostics.length === 0 && evidence.lint.length === 0 ? await besideTests?.() : undefined;
  try {
    // Tests run even after type errors: tsx strips types, and a runtime failure is evidence too.
    const { result: tests, tampered, heldOut } = await runJudgingTests(ctx, attempt);
    evidence.tests = tests;
    if (tampered.length) evidence.tampered = tampered;
    await log.emit({ type: 'tests.ran', attempt, result: tests });

    let passed = evidence.diagnostics.length === 0 && evidence.lint.length === 0 && tests.status === 'passed';
    if (passed) passed = await projectRegressionPasses(ctx, attempt, evidence);
    let heldOutFact: MachineFact | undefined;
    if (passed) {
      passed = await heldOutPasses(ctx, attempt, evidence, heldOut);
      if (!passed && heldOut) heldOutFact = heldOutContradiction(manifest, tests, heldOut);
    }
    if (!passed) {
      beside?.drop();
      await probeTests(ctx, evidence);
    }
    return { passed, evidence, ...(heldOutFact ? { heldOutFact } : {}) };
  } catch (err) {
    beside?.drop();
    throw err;
  }
}

/**
 * Once the ticket's tests pass: the project's own tests that import a file the run changed
 * (directly or through other files) run too, and a case that passed before the run and fails
 * now fails the attempt, with the case named in the failure the Debugger reads.
 */
async function projectRegressionPasses(ctx: RunContext, attempt: number, evidence: FailureEvidence): Promise<boolean> {
  const files = await testsReaching(ctx, changedByRun(ctx));
  if (!files.length) return true;
  const r = await attemptRegression(ctx, attempt, files, await filesAlong(ctx, files));
  await ctx.log.emit({
    type: 'projectTests.ran',
    attempt,
    files: r.files,
    result: r.result!,
    newlyFailing: r.newlyFailing,
    preExisting: r.preExisting,
  });
  if (!r.newlyFailing.length) return true;
  evidence.regressions = r.newlyFailing.map((k) => {
    const c = r.result?.cases.find((x) => caseKey(x) === k);
    return {
      test: k,
      message: [
        c?.message,
        c?.expected !== undefined ? `Expected: ${c.expected}` : '',
        c?.actual !== undefined ? `Received: ${c.actual}` : '',
      ]
        .filter(Boolean)
        .join('\n'),
    };
  });
  return false;
}

/** Generalize: once the visible cases pass, the held-out ones judge the attempt (`judgeHeldOut`). */
async function heldOutPasses(
  ctx: RunContext,
  attempt: number,
  evidence: FailureEvidence,
  result: TestRunResult | undefined,
): Promise<boolean> {
  const tooNarrow = await judgeHeldOut(ctx, attempt, result);
  if (tooNarrow) evidence.tooNarrow = tooNarrow;
  return !tooNarrow;
}

/**
 * After a failure, gathers the type facts the wrong-test guard may use, all against the code as
 * it was before the Coder wrote it (the project plus the ticket's typed ops), never against the
 * Coder's code: the rendered and visible authored tests' own type errors there (but for an import
 * the change is to satisfy: awaitedImports.ts), and the equality expectations a
 * subject's declared type cannot hold (the type probe). Both are in memory; nothing is written.
 */
async function probeTests(ctx: RunContext, evidence: CheckOutcome['evidence']): Promise<void> {
  const { deps, manifest, signal } = ctx;
  if (!deps.diagnostics?.probe || manifest.testLanguage !== 'ts') return;
  const overlays = await preCoderOverlays(ctx);
  const found = [];
  const pristine = [];
  for (const path of [...manifest.testPlan.files.map((f) => f.path), ...authoredTests(manifest.testPlan).map((a) => a.path)]) {
    const text = ctx.oracle?.contentOf(path) ?? (await deps.workspace.readFile(path));
    if (text !== null)
      pristine.push(
        ...(await deps.diagnostics.probe(path, text, signal, overlays)).filter(
          (d) => d.category === 'error' && d.file === path && !awaitsTheChange(d, manifest),
        ),
      );
  }
  for (const file of manifest.testPlan.files) {
    const probe = renderTypeProbe(file);
    if (!probe) continue;
    const diagnostics = await deps.diagnostics.probe(probe.path, probe.content, signal, overlays);
    found.push(
      ...impossibleExpectations(probe, diagnostics).map((x) => ({
        file: file.path,
        caseName: x.caseName,
        actual: x.actual,
        expected: x.expected,
        code: x.code,
        message: x.message,
      })),
    );
  }
  evidence.testErrorsBeforeCoder = pristine;
  if (found.length) evidence.impossibleExpectations = found;
}
