import type { CodeDiagnostic } from '../../schema/checks';
import type { MachineFact, Proposal } from '../../schema/correction';
import type { GateEvidence, GateName, ReviewBlocker, TestReview as TestReviewT, UncoveredLines } from '../../schema/gates';
import type { RunContext } from '../common/context';
import { baselineFromLog, splitDiagnostics, splitLint, typecheckScope } from '../checks/findingsBaseline';
import { MIN_QUOTE_CHARS } from '../debugger/debuggerStage';
import { isCodePath } from '../../schema/paths';
import { gateRegression } from '../checks/attemptRegression';
import { caseKey, changedByRun, gateTestFiles, testsReaching } from '../checks/projectTests';
import { selectionWords } from '../checks/projectTestSelection';
import { expectedNotPassed } from '../checks/plannedCases';
import { authoredFiles, expectedCases } from '../checks/authoredCases';
import { seeded } from '../checks/propertySeed';
import { addedSuppressions, suppressionDiagnostics, suppressionProblems } from './suppressions';
import { readFiles } from '../common/scope';
import { DEFAULT_BUILD_TIMEOUT_MS, DEFAULT_COVERAGE_THRESHOLD, type GateDeps } from '../common/gateConfig';
import { changedLines, cumulativeChanges, unifiedDiff, type ChangedFile } from '../common/diff';
import {
  coveragePlanPrompt,
  REVIEWER_SYSTEM,
  reviewerPrompt,
  TEST_REVIEWER_SYSTEM,
  testReviewerPrompt,
  type ReviewInputs,
} from './prompts';
import { projectTestHits } from './projectCoverage';
import { judgedCoverage, measuredFiles } from '../checks/judgedCoverage';
import { ImportReach } from '../checks/reach';
import { askStructured, REVIEW_TOOL, ReviewVerdict, TEST_REVIEW_TOOL, TestReview, verifiedBlockers } from './reviewers';
import { criteriaWithoutTest } from '../../ticket/untestedCriteria';
import { describeValidation, validateTestPlan } from './testPlanCheck';

/** What one run of one gate found. `complaints` feed a repair; `correction` goes to the operator. */
export interface GateOutcome {
  gate: GateName;
  status: 'passed' | 'failed' | 'skipped' | 'error';
  detail: string;
  evidence?: GateEvidence;
  durationMs: number;
  complaints?: { lines: string[]; files: string[]; blockers: ReviewBlocker[] };
  correction?: { fact: MachineFact; claim?: string; proposal: Proposal };
}

export interface GateEnv {
  ctx: RunContext;
  settings: GateDeps;
  /** The attempt whose code the gates check: model calls and repairs are recorded under it. */
  attempt: number;
}

/** Collapses whitespace, so a quote that wraps differently still counts as verbatim. */
const squash = (s: string): string => s.replace(/\s+/g, ' ').trim();
const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;
const diagLine = (d: CodeDiagnostic): string => `${d.file}:${d.line}:${d.column} ${d.code}: ${d.message}`;

/** The changed files that are the ticket's code: not its rendered tests, not deleted. */
function codeChanges(env: GateEnv, changes: ChangedFile[]): ChangedFile[] {
  const tests = new Set(env.ctx.manifest.testFiles);
  return changes.filter((c) => c.after !== null && isCodePath(c.path) && !tests.has(c.path));
}

export async function typecheckGate(env: GateEnv): Promise<Omit<GateOutcome, 'gate' | 'durationMs'>> {
  const port = env.settings.typecheck;
  if (!port) return { status: 'skipped', detail: 'no project-wide type-checker is wired here' };
  const r = await port.check(env.ctx.signal, typecheckScope(env.ctx));
  if (r.status === 'skipped' || r.status === 'error')
    return {
      status: r.status,
      detail: r.detail,
      evidence: { kind: 'typecheck', tool: r.tool, diagnostics: r.diagnostics, unrelated: [], preExisting: [] },
    };
  const changes = await cumulativeChanges(env.ctx);
  const reach = new ImportReach(env.ctx.deps.workspace, new Set([...changes.map((c) => c.path), ...env.ctx.manifest.testFiles]));
  // The whole project's errors before the run's first write are not the run's: matched by file, code and message.
  const { introduced, preExisting } = splitDiagnostics(
    baselineFromLog(env.ctx)?.project ?? [],
    r.diagnostics.filter((x) => x.category === 'error'),
  );
  const related: CodeDiagnostic[] = [];
  const unrelated: CodeDiagnostic[] = [];
  // A file whose imports the walk could not follow to their end counts as reached: fail closed.
  for (const d of introduced) ((await reach.reaches(d.file)) === false ? unrelated : related).push(d);
  related.push(...suppressionDiagnostics(addedSuppressions(codeChanges(env, changes), 'typecheck')));
  const elsewhere = unrelated.length ? `; ${plural(unrelated.length, 'error')} in files the change does not reach, not counted` : '';
  const before = preExisting.length ? `; ${plural(preExisting.length, 'pre-existing error')}, not counted` : '';
  return {
    status: related.length ? 'failed' : 'passed',
    detail: `${r.detail}: ${related.length ? `${plural(related.length, 'error')} the change reaches` : 'clean'}${elsewhere}${before}`,
    evidence: { kind: 'typecheck', tool: r.tool, diagnostics: related, unrelated, preExisting },
    complaints: related.length
      ? { lines: related.map(diagLine), files: [...new Set(related.map((d) => d.file))], blockers: [] }
      : undefined,
  };
}

export async function lintGate(env: GateEnv): Promise<Omit<GateOutcome, 'gate' | 'durationMs'>> {
  const lint = env.ctx.deps.lint;
  if (!lint) return { status: 'skipped', detail: 'no linter is wired here' };
  const changes = codeChanges(env, await cumulativeChanges(env.ctx));
  const files = changes.map((c) => c.path);
  if (!files.length)
    return { status: 'skipped', detail: 'the run changed no code file', evidence: { kind: 'lint', files, problems: [], preExisting: [] } };
  const r = await lint.lint(files, env.ctx.signal);
  const { introduced, preExisting } = splitLint(
    baselineFromLog(env.ctx)?.lint ?? [],
    r.problems.filter((p) => p.severity === 'error'),
  );
  // Only a linter that ran judges: an added eslint-disable means nothing where none did.
  const hiding = r.status === 'passed' || r.status === 'failed' ? suppressionProblems(addedSuppressions(changes, 'lint')) : [];
  const errors = [...introduced, ...hiding];
  const detail =
    r.status === 'skipped' || r.status === 'error'
      ? (r.detail ?? `the linter ${r.status === 'error' ? 'could not run' : 'skipped'}`)
      : `${plural(files.length, 'changed file')}: ${errors.length ? plural(errors.length, 'error') : 'clean'}`;
  return {
    status: r.status === 'skipped' || r.status === 'error' ? r.status : errors.length ? 'failed' : 'passed',
    detail,
    evidence: { kind: 'lint', files, problems: [...r.problems.filter((p) => !preExisting.includes(p)), ...hiding], preExisting },
    complaints: errors.length
      ? {
          lines: errors.map((p) => `${p.file}:${p.line}:${p.column} ${p.rule ?? 'lint'}: ${p.message}`),
          files: [...new Set(errors.map((p) => p.file))],
          blockers: [],
        }
      : undefined,
  };
}

export async function buildGate(env: GateEnv): Promise<Omit<GateOutcome, 'gate' | 'durationMs'>> {
  const command = env.settings.buildCommand?.trim();
  if (!command) return { status: 'skipped', detail: 'no build command was given' };
  if (!env.settings.build) return { status: 'skipped', detail: 'no build runner is wired here' };
  const r = await env.settings.build.run(command, env.settings.buildTimeoutMs ?? DEFAULT_BUILD_TIMEOUT_MS, env.ctx.signal);
  const evidence: GateEvidence = { kind: 'build', command, exitCode: r.exitCode, output: r.output };
  if (r.status === 'error')
    return { status: 'error', detail: `\`${command}\` could not run: ${r.output.trim().split('\n').pop() ?? ''}`, evidence };
  const failed = r.status !== 'passed';
  const why = r.status === 'timeout' ? 'timed out' : `exited with ${String(r.exitCode)}`;
  return {
    status: failed ? 'failed' : 'passed',
    detail: `\`${command}\` ${failed ? why : 'succeeded'} (${Math.round(r.durationMs)} ms)`,
    evidence,
    complaints: failed
      ? {
          lines: [`\`${command}\` ${why}; the end of its output:\n${r.output.trim().split('\n').slice(-40).join('\n')}`],
          files: [],
          blockers: [],
        }
      : undefined,
  };
}

/** The reviewers' shared inputs: the ticket, the cumulative diff, the changed files, the tests. */
async function reviewInputs(env: GateEnv): Promise<{ inputs: ReviewInputs; changes: ChangedFile[] }> {
  const { ctx } = env;
  const changes = await cumulativeChanges(ctx);
  return {
    changes,
    inputs: {
      manifest: ctx.manifest,
      diff: changes.map((c) => unifiedDiff(c)).join('\n'),
      files: changes.filter((c) => c.after !== null).map((c) => ({ path: c.path, content: c.after! })),
      tests: await readFiles(ctx.deps.workspace, ctx.manifest.testFiles),
    },
  };
}

/** The last passing review's diff hash: the same code is not reviewed twice in one run. */
function reviewedDiff(env: GateEnv): string | undefined {
  for (const e of [...env.ctx.log.events].reverse()) {
    if (e.type === 'gate.ran' && e.gate === 'implementationReview' && e.evidence?.kind === 'implementationReview') {
      return e.status === 'passed' ? e.evidence.diffHash : undefined;
    }
  }
  return undefined;
}

export async function implementationReviewGate(env: GateEnv): Promise<Omit<GateOutcome, 'gate' | 'durationMs'>> {
  const { ctx } = env;
  const { inputs } = await reviewInputs(env);
  if (!inputs.diff) return { status: 'skipped', detail: 'the run changed no file' };
  const diffHash = ctx.deps.hash(inputs.diff);
  if (reviewedDiff(env) === diffHash) {
    return {
      status: 'passed',
      detail: 'the code is unchanged since its review passed',
      evidence: { kind: 'implementationReview', verdict: 'pass', blockers: [], rejected: [], diffHash },
    };
  }
  const prompt = reviewerPrompt(inputs);
  const shown = new Set([
    ...inputs.files.map((f) => f.path),
    ...inputs.tests.map((f) => f.path),
    ...ctx.manifest.scope.write.map((f) => f.path),
    ...ctx.manifest.scope.read.map((f) => f.path),
  ]);
  const verify = (v: ReviewVerdict): string[] => {
    if (v.verdict !== 'fail') return [];
    const { kept, dropped } = verifiedBlockers(v.blockers, prompt, shown);
    return kept.length ? [] : dropped;
  };
  const answer = await askStructured(ctx, {
    role: 'reviewer',
    attempt: env.attempt,
    system: REVIEWER_SYSTEM,
    prompt,
    tool: REVIEW_TOOL,
    schema: ReviewVerdict,
    verify,
  });
  if (!answer.value) {
    // No verdict is no finding: a reviewer that cannot answer does not fail working code.
    return {
      status: 'error',
      detail: `no usable verdict from the reviewer: ${answer.rejected.join(' | ')}`,
      evidence: { kind: 'implementationReview', verdict: null, blockers: [], rejected: answer.rejected, diffHash },
    };
  }
  const { kept, dropped } = verifiedBlockers(answer.value.blockers, prompt, shown);
  const rejected = [...answer.rejected, ...dropped];
  if (answer.value.verdict === 'pass') {
    return {
      status: 'passed',
      detail: 'the reviewer found no blocker',
      evidence: { kind: 'implementationReview', verdict: 'pass', blockers: [], rejected, diffHash },
    };
  }
  return {
    status: 'failed',
    detail: `${plural(kept.length, 'blocker')}: ${kept.map((b) => b.claim).join(' | ')}`,
    evidence: { kind: 'implementationReview', verdict: 'fail', blockers: kept, rejected, diffHash },
    complaints: { lines: [], files: [...new Set(kept.flatMap((b) => (b.file ? [b.file] : [])))], blockers: kept },
  };
}

/** A proposed plan, validated; a plan that fails validation becomes a `none` proposal saying why. */
async function proposalFrom(env: GateEnv, review: TestReviewT | null, fallback: string): Promise<{ proposal: Proposal; note: string }> {
  if (!review?.proposedTestPlan) return { proposal: { kind: 'none', why: fallback }, note: 'no plan proposed' };
  const v = await validateTestPlan(env.ctx.deps, env.ctx.manifest, review.proposedTestPlan, env.ctx.signal);
  if (v.ok && v.plan)
    return { proposal: { kind: 'testPlan', testPlan: v.plan }, note: `the proposed plan validates (${describeValidation(v)})` };
  return {
    proposal: {
      kind: 'none',
      why: `the proposed test plan does not validate (${describeValidation(v)}): ${v.problems.slice(0, 5).join('; ')}`,
    },
    note: 'the proposed plan does not validate',
  };
}

/**
 * Criteria no test case names, when the plan names criteria at all (otherwise nothing can be told).
 * A held-out case counts: it judges the change as a visible one does, and a correction may leave a
 * criterion's only case held out (keepHeldOut), which must not read as a criterion with no test.
 */
function untaggedCriteria(env: GateEnv): string[] {
  const { testPlan, heldOut, acceptance } = env.ctx.manifest;
  return criteriaWithoutTest(
    acceptance,
    { ...testPlan, files: [...testPlan.files, ...heldOut.files] },
    authoredFiles(env.ctx.manifest).length > 0,
  );
}

export async function testReviewGate(env: GateEnv): Promise<Omit<GateOutcome, 'gate' | 'durationMs'>> {
  const { ctx } = env;
  const { inputs } = await reviewInputs(env);
  const untagged = untaggedCriteria(env);
  const prompt = testReviewerPrompt({ ...inputs, plan: ctx.manifest.testPlan, untagged });
  const known = new Set(ctx.manifest.acceptance.map((a) => a.id));
  const verify = (v: TestReviewT): string[] =>
    v.criteria.filter((c) => !known.has(c.id)).map((c) => `criterion ${c.id} is not one of the ticket's (${[...known].join(', ')})`);
  const answer = await askStructured(ctx, {
    role: 'testReviewer',
    attempt: env.attempt,
    system: TEST_REVIEWER_SYSTEM,
    prompt,
    tool: TEST_REVIEW_TOOL,
    schema: TestReview,
    verify,
  });
  const review = answer.value;
  const uncovered = review?.criteria.filter((c) => !c.covered).map((c) => c.id) ?? [];
  const evidence: GateEvidence = {
    kind: 'testReview',
    verdict: review?.verdict ?? null,
    untagged,
    uncovered,
    claim: review?.claim,
    rejected: answer.rejected,
  };
  if (untagged.length) {
    // The machine fact: no case of the plan names these criteria, whatever the reviewer says.
    const { proposal, note } = await proposalFrom(
      env,
      review,
      `add a test case for ${untagged.join(', ')} to the ticket's testPlan by hand`,
    );
    const fact: MachineFact = {
      kind: 'criterionNotCovered',
      detail: `no test case of the plan names acceptance criteri${untagged.length === 1 ? 'on' : 'a'} ${untagged.join(', ')}`,
    };
    return { status: 'failed', detail: `${fact.detail}; ${note}`, evidence, correction: { fact, claim: review?.claim, proposal } };
  }
  if (!review) return { status: 'error', detail: `no usable answer from the Test Reviewer: ${answer.rejected.join(' | ')}`, evidence };
  // A criterion the reviewer shows, quoting the rendered tests verbatim, to have no test that
  // checks it. The quote is the machine fact, whatever the verdict says: a "pass" that shows an
  // unchecked criterion contradicts itself, and the evidence wins.
  const testsText = squash(inputs.tests.map((f) => f.content).join('\n'));
  const shown = review.criteria.filter(
    (c) =>
      !c.covered &&
      c.evidence !== undefined &&
      squash(c.evidence).replace(/\s/g, '').length >= MIN_QUOTE_CHARS &&
      testsText.includes(squash(c.evidence)),
  );
  if (shown.length) {
    const ids = shown.map((c) => c.id);
    const { proposal, note } = await proposalFrom(
      env,
      review,
      `add a test case that checks ${ids.join(', ')} to the ticket's testPlan by hand`,
    );
    const fact: MachineFact = {
      kind: 'criterionNotCovered',
      detail: `the Test Reviewer shows, quoting the rendered tests, that no test checks ${ids.join(', ')}: ${shown.map((c) => `${c.id}: "${c.evidence}"${c.claim ? ` (${c.claim})` : ''}`).join('; ')}`,
    };
    return { status: 'failed', detail: `${fact.detail}; ${note}`, evidence, correction: { fact, claim: review.claim, proposal } };
  }
  if (review.verdict === 'fail') {
    // The router's rule: a model's claim with no machine fact behind it abstains, on record.
    return {
      status: 'passed',
      detail: `the Test Reviewer objected (${review.claim ?? uncovered.join(', ')}), but every criterion has a test case: no machine fact confirms it`,
      evidence,
    };
  }
  return {
    status: 'passed',
    detail: `every acceptance criterion has a test case (${ctx.manifest.acceptance.map((a) => a.id).join(', ')})`,
    evidence,
  };
}

/** The lines with code on them: not blank, not only a comment or a closing bracket. */
function nonBlank(text: readonly string[], lines: readonly number[]): number[] {
  return lines.filter((l) => {
    const t = (text[l - 1] ?? '').trim();
    return t !== '' && !/^(\/\/|\/\*|\*)/.test(t) && !/^[)}\];,]+$/.test(t);
  });
}

export async function coverageGate(env: GateEnv): Promise<Omit<GateOutcome, 'gate' | 'durationMs'>> {
  const { ctx, settings } = env;
  if (!settings.coverage) return { status: 'skipped', detail: 'no coverage runner is wired here' };
  const code = await measuredFiles(ctx);
  const changed = new Map(code.map((c) => [c.path, changedLines(c.before, c.after)] as const));
  const texts = new Map(code.map((c) => [c.path, (c.after ?? '').split('\n')] as const));
  if (![...changed.values()].some((l) => l.length)) return { status: 'skipped', detail: 'the run changed no code line' };
  const hidden = addedSuppressions(code, 'coverage');
  if (hidden.length) {
    const where = hidden.map((h) => `${h.file}:${h.line} "${h.directive}"`).join(', ');
    return {
      status: 'failed',
      detail: `the change adds comments that hide lines from the coverage measure (${where}): no measure of it can count`,
    };
  }
  const threshold = settings.coverageThreshold ?? DEFAULT_COVERAGE_THRESHOLD;
  const measure = [...changed.keys()];
  // The run that judged the last attempt measured this very code already, when its runner measures as it runs.
  const judged = judgedCoverage(ctx, measure);
  const request = {
    framework: ctx.manifest.runner.framework,
    files: ctx.manifest.testFiles,
    timeoutMs: ctx.deps.testTimeoutMs ?? 120_000,
    measure,
    ...(await seeded(ctx, env.attempt)),
  };
  const r = judged ? await judged : await settings.coverage.run(request, ctx.signal);
  if (r.status === 'unavailable') return { status: 'skipped', detail: r.detail ?? 'the runner cannot measure coverage here' };
  const by = `${r.source && r.source !== 'v8' ? `${r.source}'s own coverage` : 'V8 coverage'}${judged ? ' of the run that judged the tests' : ''}`;
  if (r.tests && r.tests.status !== 'passed')
    return { status: 'error', detail: `the tests did not pass under ${by} (${r.tests.status}, ${r.tests.failed} failed): no measure` };
  const notPassed = r.tests ? expectedNotPassed(expectedCases(ctx, 'visible'), r.tests) : [];
  if (notPassed.length)
    return {
      status: 'error',
      detail: `the runner said passed under ${by}, but ${plural(notPassed.length, 'case')} of the test plan did not pass (${notPassed.join('; ')}): no measure`,
    };
  if (r.status === 'error' || !r.tests) return { status: 'error', detail: `${by} gave no measure: ${r.detail ?? 'the tests did not run'}` };
  const hits = new Map(r.files.map((f) => [f.file, new Map(f.lines)] as const));
  const absent = new Set(r.absent ?? []);
  // A changed file no ticket test loaded: its lines count as not run, unless the project's own
  // tests reach it (a caller the change had to follow, checked by those tests): then its changed
  // lines are measured under those tests, and the ones they never ran count as not run. New code
  // no test reaches at all always counts.
  const reachedByProject: string[] = [];
  for (const file of r.unloaded ?? []) if ((await testsReaching(ctx, [file])).length) reachedByProject.push(file);
  const project = reachedByProject.length
    ? await projectTestHits(ctx, settings.coverage, reachedByProject)
    : { hits: new Map<string, Map<number, number>>() };
  if ('error' in project) return { status: 'error', detail: project.error };
  const uncovered: UncoveredLines[] = [];
  const unloaded: string[] = [];
  const left: string[] = [];
  let total = 0;
  let covered = 0;
  for (const [file, lines] of changed) {
    const byProject = reachedByProject.includes(file);
    const fileHits = byProject ? project.hits.get(file) : hits.get(file);
    if (!fileHits && (absent.has(file) || byProject)) {
      // Asked for by name and left out of the report (a coverage exclude, a config the Coder
      // edited): nothing shows these lines ran, so every changed line counts as not run.
      const code = nonBlank(texts.get(file) ?? [], lines);
      if (code.length) {
        left.push(file);
        total += code.length;
        uncovered.push({ file, lines: code });
      }
      continue;
    }
    if (!fileHits) {
      // No executable line known to the measure: a types-only module. Reported, and not counted.
      if (lines.length) unloaded.push(file);
      continue;
    }
    const missed = lines.filter((l) => fileHits.has(l) && fileHits.get(l) === 0);
    const executable = lines.filter((l) => fileHits.has(l));
    total += executable.length;
    covered += executable.length - missed.length;
    if (missed.length) uncovered.push({ file, lines: missed });
  }
  const ratio = total ? covered / total : 1;
  const evidence: GateEvidence = {
    kind: 'coverage',
    changedLines: total,
    coveredLines: covered,
    threshold,
    uncovered,
    unloaded,
    ...(r.source ? { source: r.source } : {}),
    ...(left.length ? { absent: left } : {}),
    ...(reachedByProject.length ? { byProjectTests: reachedByProject } : {}),
  };
  const pct = (x: number) => `${Math.round(x * 1000) / 10}%`;
  const notLoaded = unloaded.length
    ? `; not loaded by the ticket's tests, not counted (types or imports only): ${unloaded.join(', ')}`
    : '';
  const byProject = reachedByProject.length
    ? `; not loaded by the ticket's tests, measured under the project's own tests that reach them: ${reachedByProject.join(', ')}`
    : '';
  const notReported = left.length ? `; left out of the ${r.source ?? ''} coverage report, so counted as not run: ${left.join(', ')}` : '';
  const summary = `${covered} of ${plural(total, 'changed executable line')} ran (${pct(ratio)}, threshold ${pct(threshold)}, ${by})${byProject}${notLoaded}${notReported}`;
  if (ratio >= threshold) return { status: 'passed', detail: summary, evidence };

  const shown = uncovered.map((u) => ({
    file: u.file,
    lines: u.lines.map((line) => ({ line, text: texts.get(u.file)?.[line - 1] ?? '' })),
  }));
  const { inputs } = await reviewInputs(env);
  const prompt = coveragePlanPrompt({ ...inputs, plan: ctx.manifest.testPlan, uncovered: shown });
  const answer = await askStructured(ctx, {
    role: 'testReviewer',
    attempt: env.attempt,
    system: TEST_REVIEWER_SYSTEM,
    prompt,
    tool: TEST_REVIEW_TOOL,
    schema: TestReview,
  });
  const { proposal, note } = await proposalFrom(
    env,
    answer.value,
    "add test cases that run the uncovered lines to the ticket's testPlan by hand",
  );
  const fact: MachineFact = {
    kind: 'changedLinesUncovered',
    detail: `no test runs ${uncovered.map((u) => `${u.file}:${u.lines.join(',')}`).join('; ')}`,
    file: uncovered[0]?.file,
    line: uncovered[0]?.lines[0],
  };
  return { status: 'failed', detail: `${summary}; ${note}`, evidence, correction: { fact, claim: answer.value?.claim, proposal } };
}

/**
 * The project's own tests (those that reach the change, or the whole suite: `selectProjectTests`),
 * against the baseline taken before the run's first write: a case that passed then and fails now
 * fails the gate; one that already failed is reported and not counted. A file the baseline did
 * not run is judged on its own.
 */
export async function projectTestsGate(env: GateEnv): Promise<Omit<GateOutcome, 'gate' | 'durationMs'>> {
  const { files, selection } = await gateTestFiles(env.ctx, changedByRun(env.ctx));
  const which = selectionWords(selection, files);
  if (!files.length && !(selection.by === 'reach' && selection.suite))
    return { status: 'skipped', detail: 'the project has no tests of its own' };
  if (!files.length)
    return { status: 'skipped', detail: which, evidence: { kind: 'projectTests', files, newlyFailing: [], preExisting: [], selection } };
  const r = await gateRegression(env.ctx, files);
  const evidence: GateEvidence = { kind: 'projectTests', files, newlyFailing: r.newlyFailing, preExisting: r.preExisting, selection };
  const before = r.preExisting.length ? `; ${plural(r.preExisting.length, 'case')} that already failed before the run, not counted` : '';
  // Results taken from the attempt's own run on this same code say so: the gate did not run them again.
  const reused = r.reused
    ? ` (${r.reused.files.length === files.length ? 'all' : `${r.reused.files.length} of them`} as attempt ${r.reused.attempt}'s checks ran them, on this same code)`
    : '';
  if (!r.newlyFailing.length)
    return {
      status: 'passed',
      detail: `${which}${reused}; no test that passed before the run fails now${before}`,
      evidence,
    };
  const messages = new Map((r.result?.cases ?? []).map((c) => [caseKey(c), c.message?.split('\n')[0] ?? ''] as const));
  return {
    status: 'failed',
    detail: `${which}; ${plural(r.newlyFailing.length, 'existing test')} that passed before the run now fail${r.newlyFailing.length === 1 ? 's' : ''}: ${r.newlyFailing.slice(0, 3).join('; ')}${before}`,
    evidence,
    complaints: {
      lines: r.newlyFailing.map((k) => `existing test now fails: ${k}${messages.get(k) ? `: ${messages.get(k)}` : ''}`),
      files: [],
      blockers: [],
    },
  };
}
