import type { ModelInfo, RunOutcome, StopReason, UserEditConflict, UserEditWriter } from '../../schema/events';
import type { DisplayStatus } from '../liveness';
import type { AttemptState, RunState } from '../reducer';
import type { TestRunResult } from '../../schema/checks';
import { judgedByText, verdictLines, verdictText } from './verdict';
import { durationWords } from './time';
import { gateWords, outcomeWords, REUSED, whatIsWrong } from './words';

/** The model label every report line uses: the scripted provider always says so. */
export function modelLabel(state: RunState): string {
  return state.model ? modelInfoLabel(state.model) : 'unknown model';
}

/** The one wording of a model: the scripted provider always says it is a test and demo replay. */
export function modelInfoLabel(model: ModelInfo): string {
  return model.scripted ? `SCRIPTED model (test/demo replay: ${model.model})` : `${model.provider} ${model.model}`;
}

/** How the CLI and the extension warn that the scope had uncommitted changes when the run started. */
export function describeUncommitted(files: readonly string[]): string {
  return `uncommitted changes in scope: ${files.join(', ')} (the run goes on; rollback puts them back as they are now)`;
}

const WRITER_WORDS: Record<UserEditWriter, string> = {
  coder: "the Coder's change",
  repair: "a gate's repair",
  op: "the ticket's op",
  autofix: 'a structural fix',
};

/** How every view says what the run did with a file the user changed while it ran. */
export function describeUserEdit(e: { path: string; by: UserEditWriter; outcome: 'merged' | 'kept' }): string {
  const what = WRITER_WORDS[e.by];
  return e.outcome === 'merged'
    ? `you changed ${e.path} while the run worked on it: ${what} was merged with yours, line by line, and both are in the file`
    : `you changed ${e.path} while the run worked on it, and ${what} overlaps yours: it was not written, your file is as you left it, and the run stopped`;
}

/** How every view says that the user saved files while the run's tests ran, and that the run kept them. */
export function describeUserSaves(files: readonly string[]): string {
  return `you saved ${files.join(', ')} while the run's tests ran: kept as you saved ${files.length === 1 ? 'it' : 'them'}, and nothing of the run put ${files.length === 1 ? 'it' : 'them'} back`;
}

/** The three versions of the lines where the user's change and the run's overlap, for the operator to merge by hand. */
export function userEditConflictLines(conflicts: readonly UserEditConflict[], indent = '    '): string[] {
  const block = (title: string, text: string) => [
    `${indent}${title}:`,
    ...(text === '' ? ['(nothing)'] : text.replace(/\n$/, '').split('\n')).map((l) => `${indent}  ${l}`),
  ];
  return conflicts.flatMap((c) => [...block('the run started from', c.base), ...block('yours', c.yours), ...block("the run's", c.run)]);
}

/** How every view says where the run's processes ran: `sandbox: off (reason)` when they were not sandboxed. */
export function sandboxLabel(status: { on: boolean; detail: string } | undefined): string | null {
  if (!status) return null;
  return `sandbox: ${status.on ? 'on' : 'off'} (${status.detail})`;
}

/**
 * How a run ended, in one line for its views: the outcome in words, then why, without saying a
 * thing twice ("cancelled: cancelled", "stopped by an error: error: …").
 */
export function outcomeLine(finished: { outcome: RunOutcome; reason: StopReason }, o: StopWords = {}): string {
  const { outcome, reason } = finished;
  if (outcome === 'passed' && reason.kind === 'testsPassed') return outcomeWords('passed');
  if (reason.kind === 'cancelled') return outcomeWords('cancelled');
  if (reason.kind === 'error') return `${outcomeWords('error')}: ${reason.message}`;
  return `${outcomeWords(outcome)}: ${describeStop(reason, o)}`;
}

export interface StopWords {
  /**
   * False where the request's id helps no one and crowds out the rest (a tree row, where the
   * correction is a row of its own): the CLI keeps it, since `resolve` takes it.
   */
  requestIds?: boolean;
  /** False where people read it (the editor's views): a gate by what it checks, not by its setting's value. */
  gateNames?: boolean;
  /** False in the editor's views: the scripted model is a recorded sample there, not the script it replays. */
  modelNames?: boolean;
}

export function describeStop(reason: StopReason, o: StopWords = {}): string {
  const request = (id: string) => (o.requestIds === false ? 'correction' : `correction ${id}`);
  const gate = (name: string) => (o.gateNames === false ? `the gate "${gateWords(name)}"` : `gate ${name}`);
  switch (reason.kind) {
    case 'testsPassed':
      return 'tests passed';
    case 'retryBudgetSpent':
      return `retry budget spent after ${reason.attempts} attempt(s)`;
    case 'budgetExceeded':
      if (reason.budget === 'batchDollars')
        return `the batch's dollar budget is spent ($${reason.used.toFixed(4)} of $${reason.limit}): stopped before its next model call`;
      return `${reason.budget} budget exceeded (${reason.used} of ${reason.limit})`;
    case 'correctionRequested':
      return `${request(reason.requestId)} proposed: ${whatIsWrong(reason.route)} is wrong`;
    case 'correctionRejected':
      return `${request(reason.requestId)} rejected: ${reason.reason}`;
    case 'gateFailed':
      return `${gate(reason.gate)} failed`;
    case 'gateError':
      return `${gate(reason.gate)} could not judge the change: ${reason.message}`;
    case 'oracleTampered':
      return `the oracle changed before the verdict (${reason.files.join(', ')}): the run cannot pass on it`;
    case 'judgingToolsChanged':
      return `the test runner was changed by the code under test and could not be restored; reinstall (npm ci) and run again (${reason.files.map((f) => `${f.change} ${f.path}`).join(', ')})`;
    case 'unattributedWrites':
      return `files changed in the workspace while the tests ran without the sandbox, and nothing tells whether the tests or you wrote them; each is kept as it is, with a copy under .ticket-runner/unattributed/: look at them, then run again (with the sandbox on, your saves never stop a run): ${reason.files.join(', ')}`;
    case 'userEdited':
      return `you changed ${reason.files.join(', ')} while the run worked on it, and the run's change overlaps yours: your file${reason.files.length > 1 ? 's are' : ' is'} kept as you left ${reason.files.length > 1 ? 'them' : 'it'}; merge the run's change by hand (its three versions are in the report) and run the ticket again`;
    case 'cancelled':
      return 'cancelled';
    case 'modelError':
      return `${reason.role} model failed: ${reason.message}`;
    case 'error':
      return `error: ${reason.message}`;
  }
}

/** A failure's first line; for a property (fast-check's message), with its shrunk counterexample. */
function failureLine(message: string): string {
  const [first = ''] = message.split('\n', 1);
  const counterexample = /^Counterexample: .*$/m.exec(message)?.[0];
  return counterexample ? `${first}; ${counterexample}` : first;
}

function attemptLines(a: AttemptState): string[] {
  const out = [`Attempt ${a.n}: ${a.status}`];
  if (a.recheck) out.push(`  no new code: ${a.recheck}`);
  if (a.brief) out.push(`  the Debugger's brief: ${a.brief}`);
  for (const r of a.rungs) out.push(`  rung ${r.rung} fired: ${r.reason}`);
  for (const an of a.anomalies) {
    out.push(
      `  anomaly in the ${an.role}'s answer (score ${an.score}${an.urgent ? ', urgent' : ''}): ${an.signals.map((x) => `${x.name}: ${x.detail}`).join('; ')}`,
    );
  }
  for (const c of a.cuts ?? []) {
    out.push(
      `  the Coder's answer was cut off at the model's token limit (${c.outputTokens} tokens); its unfinished part was not written${c.final ? ', and its turn ended there' : ''}`,
    );
  }
  const edits = a.editRefusals ?? [];
  if (edits.length)
    out.push(
      `  ${edits.length} edit(s) refused and told to the Coder, at no attempt's cost: ${edits.map((e) => `${e.path || e.command}: ${e.detail.split('\n', 1)[0]}`).join('; ')}`,
    );
  for (const w of a.written) out.push(`  wrote ${w.path}${w.before === null ? ' (new)' : ''}`);
  for (const r of a.refused)
    out.push(r.reason === 'elided' ? `  NOT WRITTEN ${r.path}: ${r.detail}` : `  REFUSED ${r.path} (${r.reason}): ${r.detail}`);
  for (const t of a.tampered)
    out.push(
      `  ORACLE CHANGED: ${t.path} (found ${t.at === 'afterTests' ? 'after the test run' : t.at === 'beforeTests' ? 'before the test run' : 'before the verdict'}; restored)`,
    );
  if (a.parse) out.push(`  parse: ${a.parse.ok ? 'ok' : `${a.parse.problems.length} syntax problem(s)`}`);
  if (a.autofix?.applied.length)
    out.push(`  auto-fixed: ${a.autofix.applied.map((f) => `${f.code} ${f.description} in ${f.file}`).join('; ')}`);
  if (a.autofix?.refused.length)
    out.push(`  fix refused (out of scope, or not applicable): ${a.autofix.refused.map((f) => f.description).join('; ')}`);
  if (a.diagnostics) {
    const errs = a.diagnostics.diagnostics.filter((d) => d.category === 'error');
    out.push(`  diagnostics: ${errs.length ? `${errs.length} error(s)` : 'clean'} in ${a.diagnostics.checkedFiles.length} file(s)`);
    for (const d of errs.slice(0, 5)) out.push(`    ${d.file}:${d.line} ${d.code} ${d.message}`);
    if (a.diagnostics.preExisting.length) out.push(`  pre-existing (not counted): ${a.diagnostics.preExisting.length} error(s)`);
    for (const d of a.diagnostics.preExisting.slice(0, 5)) out.push(`    ${d.file}:${d.line} ${d.code} ${d.message}`);
  }
  if (a.lint)
    out.push(
      `  lint: ${a.lint.status}${a.lint.detail ? ` (${a.lint.detail})` : ''}${a.lint.preExisting.length ? `; pre-existing (not counted): ${a.lint.preExisting.length}` : ''}`,
    );
  if (a.tests) {
    const t = a.tests;
    out.push(`  tests: ${t.status}, ${t.passed} passed, ${t.failed} failed (${durationWords(t.durationMs)})`);
    if (a.propertySeed !== undefined) out.push(`    the properties drew their inputs from seed ${a.propertySeed}`);
    const effects = describeSideEffects(t);
    if (effects) out.push(`    ${effects}`);
    for (const c of t.cases.filter((x) => x.status === 'failed')) {
      out.push(
        `    FAIL ${c.name}${c.expected !== undefined ? `: expected ${c.expected}, received ${c.actual}` : c.message ? `: ${failureLine(c.message)}` : ''}`,
      );
    }
  }
  if (a.heldOut) {
    const h = a.heldOut;
    out.push(
      `  held-out cases: ${h.status}, ${h.passed} passed, ${h.failed} failed${h.status === 'passed' ? '' : `: too narrow${h.criteria.length ? ` for ${h.criteria.join(', ')}` : ''}`}`,
    );
  }
  if (a.projectTests) {
    const p = a.projectTests;
    out.push(
      `  project tests that import the change: ${p.newlyFailing.length ? `${p.newlyFailing.length} newly failing` : 'no new failure'} (${p.files.length} file(s))${p.preExisting.length ? `; ${p.preExisting.length} failing before the run, not counted` : ''}`,
    );
    for (const k of p.newlyFailing.slice(0, 5)) out.push(`    existing test now fails: ${k}`);
  }
  for (const r of a.rejectedDiagnoses)
    out.push(
      `  diagnosis rejected: ${r.reason}${r.missingQuotes.length ? ` (${r.missingQuotes.map((q) => JSON.stringify(q)).join(', ')})` : ''}`,
    );
  if (a.diagnosis) {
    out.push(`  Debugger: ${a.diagnosis.kind} is wrong: ${a.diagnosis.claim}`);
    for (const e of a.diagnosis.evidence) out.push(`    evidence (${e.source}${e.file ? ` ${e.file}` : ''}): ${JSON.stringify(e.quote)}`);
    out.push(`    brief: ${a.diagnosis.brief}`);
  } else if (a.diagnosis === null) out.push('  Debugger: no usable diagnosis');
  if (a.route) out.push(`  route: ${a.route.route} (claimed ${a.route.claimed ?? 'nothing'}; guard ${a.route.verdict}: ${a.route.detail})`);
  return out;
}

function gateLines(g: RunState['gates'][number]): string[] {
  const after = g.afterRepairOf ? (g.repaired ? ' after its repair' : ` (re-checked after the ${g.afterRepairOf} repair)`) : '';
  const status =
    g.status === 'error'
      ? g.optional
        ? 'not judged (optional; its error does not fail the run)'
        : 'error: could not judge the change'
      : g.status;
  const out = [`Gate ${g.gate}: ${status}${after} (${g.detail})`];
  const e = g.evidence;
  if (e?.kind === 'typecheck') {
    for (const d of e.diagnostics.slice(0, 5)) out.push(`    ${d.file}:${d.line} ${d.code} ${d.message.split('\n')[0]}`);
    for (const d of e.preExisting.slice(0, 5))
      out.push(`    pre-existing (not counted): ${d.file}:${d.line} ${d.code} ${d.message.split('\n')[0]}`);
  }
  if (e?.kind === 'lint')
    for (const p of e.problems.filter((x) => x.severity === 'error').slice(0, 5))
      out.push(`    ${p.file}:${p.line} ${p.rule ?? ''} ${p.message}`);
  if (e?.kind === 'implementationReview') for (const b of e.blockers) out.push(`    blocker${b.file ? ` in ${b.file}` : ''}: ${b.claim}`);
  if (e?.kind === 'projectTests') for (const k of e.newlyFailing.slice(0, 5)) out.push(`    existing test now fails: ${k}`);
  if (e?.kind === 'coverage')
    for (const u of e.uncovered) out.push(`    not run: ${u.file} line${u.lines.length === 1 ? '' : 's'} ${u.lines.join(', ')}`);
  return out;
}

function repairLines(r: RunState['repairs'][number]): string[] {
  const out = [`Repair of ${r.gate}: ${r.ok ? 'ok' : `FAILED${r.stage ? ` at ${r.stage}` : ''}`}: ${r.detail}`];
  for (const c of r.complaints ?? []) out.push(`  complaint: ${c.split('\n')[0]}`);
  for (const f of r.files) out.push(`  wrote ${f.path}`);
  if (r.regression)
    out.push(
      `  mini regression: ${r.regression.required.length} test(s) required, ${r.regression.failed.length ? `not passing: ${r.regression.failed.join(', ')}` : 'all pass'}`,
    );
  if (r.error) out.push(`  error (${r.error.name}): ${r.error.message}`);
  if (r.reverted) out.push('  its writes were put back: the code is as the gate found it');
  return out;
}

/** The whole change a correction's Accept writes, as the operator must see it before deciding. */
export function previewLines(c: RunState['corrections'][number]): string[] {
  const v = c.preview;
  if (!v) return [];
  if (v.problem !== undefined) return [`  accepting cannot apply to ${v.path}: ${v.problem}`];
  const verb = c.status === 'pending' ? 'Accept would rewrite' : c.status === 'accepted' ? 'Accept rewrote' : 'Accept would have rewritten';
  return [`  ${verb} ${v.path}:`, ...(v.diff ?? '').split('\n').map((l) => `    ${l}`)];
}

/** The report's outcome line: `status` is what the caller knows beyond the log (an interrupted run, see liveness.ts). */
function reportOutcome(state: RunState, status: DisplayStatus): string {
  if (state.finished) {
    // Why, without saying the outcome twice ("error: error: …", "cancelled: cancelled").
    const { outcome, reason } = state.finished;
    const why = describeStop(reason);
    if (why === outcome) return `Outcome: ${outcome}`;
    return `Outcome: ${outcome}: ${why.startsWith(`${outcome}: `) ? why.slice(outcome.length + 2) : why}`;
  }
  if (status === 'interrupted')
    return `Outcome: interrupted: its process${state.owner ? ` (pid ${state.owner.pid})` : ''} is gone; continue it with: ticket-runner resume ${state.runId}`;
  return 'Outcome: running';
}

/** A readable report of a run, built from its log alone (and, for `interrupted`, whether its process lives). */
export function formatRunReport(state: RunState, status: DisplayStatus = state.status): string {
  // What could not be judged is said first: a pass with an unjudged gate is not a full pass.
  const unjudged = state.notJudged.length
    ? ` (NOT JUDGED: ${state.notJudged.map((x) => x.gate).join(', ')}, optional gate${state.notJudged.length > 1 ? 's' : ''} that could not run)`
    : '';
  const lines = [
    `Run ${state.runId}: ticket ${state.ticketId} (${state.ticketPath})${unjudged}`,
    `Model: ${modelLabel(state)}`,
    ...(state.sandbox ? [sandboxLabel(state.sandbox)!] : []),
    ...(state.plan ? [`Part of the plan ${state.plan.id} (${state.plan.file}): ticket-runner plan show ${state.plan.file}`] : []),
    reportOutcome(state, status),
  ];
  // What the verdict rests on, first: the run view's summary, in its words.
  const checked = verdictLines(state);
  if (checked.length) lines.push('What was checked:', ...checked.map((l) => `  ${verdictText(l)}`));
  const judged = judgedByText(state);
  if (judged) lines.push(`Judged by: ${judged}`);
  if (state.uncommitted.length) lines.push(`Uncommitted changes in scope when it started: ${state.uncommitted.join(', ')}`);
  if (state.userSaves.length) lines.push(`Saved by you while the tests ran, kept as saved: ${state.userSaves.join(', ')}`);
  for (const u of state.userEdits) {
    lines.push(`Your edit: ${describeUserEdit(u)}`);
    if (u.outcome === 'kept') lines.push(...userEditConflictLines(u.conflicts));
  }
  if (state.manifest) {
    lines.push(
      `Scope: write ${state.manifest.scope.write.map((f) => f.path).join(', ')}; tests ${state.manifest.testFiles.join(', ')} (${state.framework ?? state.manifest.runner.framework})`,
    );
  }
  const b = state.baseline;
  if (b) {
    const old = [
      ...b.diagnostics,
      ...(b.project ?? []).filter((d) => !b.diagnostics.some((x) => x.file === d.file && x.code === d.code && x.message === d.message)),
    ];
    lines.push(
      `Before the run: ${old.length ? `${old.length} type error(s)` : 'no type errors'}${b.lint.length ? `, ${b.lint.length} lint error(s)` : ''} in the project${b.project ? '' : ' (the scope and its importers)'}; pre-existing, not counted`,
    );
    for (const d of old.slice(0, 5)) lines.push(`  pre-existing (not counted): ${d.file}:${d.line} ${d.code} ${d.message.split('\n')[0]}`);
  }
  const reused = [
    ...(b?.projectReusedFrom ? ['the type-check of the whole project'] : []),
    ...(state.projectTestsBaseline?.reusedFrom ? ["the project's tests"] : []),
  ];
  if (reused.length) lines.push(`Before the run, ${reused.join(' and ')}: ${REUSED}`);
  for (const op of state.ops)
    lines.push(`Op ${op.index} ${op.op.op}: ${op.ok ? 'applied' : `FAILED: ${op.reason} (fix: ${op.suggestion})`}`);
  if (state.opsCheck?.introduced.length) {
    lines.push(`Ops left ${state.opsCheck.introduced.length} new error(s) for the Coder:`);
    for (const d of state.opsCheck.introduced.slice(0, 5)) lines.push(`  ${d.file}:${d.line} ${d.code} ${d.message}`);
  }
  for (const a of state.attempts) lines.push(...attemptLines(a));
  for (const c of state.corrections) {
    const r = c.request;
    lines.push(`Correction ${r.id} [${c.status}${c.reason ? `: ${c.reason}` : ''}]: the ${r.target} is wrong`);
    lines.push(`  machine fact (${r.fact.kind}): ${r.fact.detail}`);
    if (r.claim) lines.push(`  claim: ${r.claim.text}`);
    const p = r.proposal;
    lines.push(
      `  proposal: ${
        p.kind === 'scopeAddition'
          ? `add to scope.write: ${p.paths.join(', ')}`
          : p.kind === 'testPlan'
            ? `corrected test plan (${p.testPlan.files.length} file(s))`
            : p.kind === 'ticketEdit'
              ? `ticket edit: ${p.summary}`
              : p.kind === 'ticketUnclear'
                ? `ticket unclear, ${p.where}: "${p.quote}". ${p.change}`
                : `none (${p.why})`
      }`,
    );
    lines.push(...previewLines(c));
  }
  for (const r of state.resumes) lines.push(`Resumed from ${r.from}: ${r.reason}`);
  for (const g of state.gates) lines.push(...gateLines(g));
  for (const r of state.repairs) lines.push(...repairLines(r));
  const u = state.usage;
  lines.push(
    `Model calls: ${u.calls}, tokens ${u.inputTokens} in / ${u.outputTokens} out, $${u.costUsd.toFixed(4)}${u.retries ? `, ${u.retries} transport retries` : ''}`,
  );
  if (state.rolledBack) lines.push('Rolled back: the workspace files the run wrote were restored.');
  return lines.join('\n');
}

/**
 * What a test run did to the workspace besides testing, for every view: what was put back,
 * and what could not be (the run then cannot pass). Null when it did nothing.
 */
export function describeSideEffects(t: Pick<TestRunResult, 'sideEffects'>): string | null {
  const effects = t.sideEffects ?? [];
  if (!effects.length) return null;
  const list = (restored: boolean) =>
    effects
      .filter((e) => e.restored === restored)
      .map((e) => `${e.change} ${e.path}`)
      .join(', ');
  const back = list(true);
  const kept = list(false);
  return [
    'the tests changed the workspace',
    ...(back ? [`put back: ${back}`] : []),
    ...(kept ? [`changed and could not be restored, so this cannot pass: ${kept}`] : []),
  ].join('; ');
}
