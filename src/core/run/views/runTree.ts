import {
  deciderWords,
  gateWords,
  guardWords,
  outcomeWords,
  routeWords,
  rungWords,
  runStatusWords,
  sourceWords,
  whatIsWrong,
  whyAttemptFailed,
} from './words';
import { agoWords, localTime, startedLabel } from './time';
import { decisionWords } from './decisionWords';
import { modelLabel, outcomeLine, sandboxLabel } from './report';
import type { DisplayStatus } from '../liveness';
import { STATUS_ICONS, type RowStatus, type TreeRow } from './treeRow';
import type { AttemptState, RunState } from '../reducer';

/**
 * The run inspector's tree as plain data, a pure function of RunState, so it is tested
 * without an editor. runsTree.ts maps each node to a vscode.TreeItem.
 */
export interface RunNode extends TreeRow {
  runId: string;
  /** A workspace-relative file the node points at; clicking opens it. */
  file?: { path: string; line?: number };
  children: RunNode[];
}

/** A status as a screen reader says it. */
const STATUS_WORDS: Record<RowStatus, string> = {
  passed: 'passed',
  failed: 'failed',
  error: 'error',
  pending: 'not run yet',
  running: 'running',
  skipped: 'skipped',
  warning: 'warning',
  needsOperator: 'waiting for your decision',
  cancelled: 'cancelled',
  interrupted: 'interrupted',
  rolledBack: 'rolled back',
};

const spoken = (label: string, status: RowStatus, description: string | undefined) =>
  [label, STATUS_WORDS[status], description].filter(Boolean).join(', ');

/** The most of a description that a sidebar of default width shows beside a row's label. */
const FEW_WORDS = 40;

/**
 * A description in a few words: its first line, cut at a word when it is longer (mid-word when a
 * long word would leave almost nothing), and marked as cut. A screen reader reads it too.
 */
function fewWords(text: string): string {
  const line = text.trim().split('\n')[0]!.trim();
  if (line.length <= FEW_WORDS) return line;
  const head = line.slice(0, FEW_WORDS);
  const atWord = head.slice(0, head.lastIndexOf(' ')).replace(/[\s·:;,]+$/, '');
  return `${atWord.length >= (FEW_WORDS * 2) / 3 ? atWord : head.slice(0, FEW_WORDS - 1)}…`;
}

/** The tooltip of a row whose description was cut: the whole text, unless the tooltip holds it already. */
function withWhole(description: string | undefined, tooltip: string | undefined): string | undefined {
  const whole = description?.trim();
  if (!whole || whole === fewWords(whole) || tooltip?.includes(whole)) return tooltip;
  return tooltip ? `${whole}\n\n${tooltip}` : whole;
}

const node = (parent: string, key: string, runId: string, label: string, status: RowStatus, extra: Partial<RunNode> = {}): RunNode => {
  const description = extra.description === undefined ? undefined : fewWords(extra.description);
  return {
    id: `${parent}/${key}`,
    label,
    runId,
    contextValue: key.split(':')[0] ?? key,
    children: [],
    ...STATUS_ICONS[status],
    ...extra,
    description,
    tooltip: withWhole(extra.description, extra.tooltip),
    accessibleLabel: spoken(extra.label ?? label, status, description),
  };
};

function checkNodes(id: string, runId: string, a: AttemptState): RunNode[] {
  const out: RunNode[] = [];
  for (const r of a.refused)
    out.push(node(id, `refused:${r.path}`, runId, `write refused: ${r.path}`, 'warning', { description: r.reason, tooltip: r.detail }));
  if (a.parse) {
    const n = node(id, 'parse', runId, 'parse', a.parse.ok ? 'passed' : 'failed', {
      description: a.parse.ok ? 'no syntax problems' : `${a.parse.problems.length} problem(s)`,
    });
    n.children = a.parse.problems.map((p, i) =>
      node(n.id, `problem:${i}`, runId, `${p.file}:${p.line}:${p.column}`, 'failed', {
        description: `${p.kind} ${p.text}`,
        file: { path: p.file, line: p.line },
      }),
    );
    out.push(n);
  }
  if (a.autofix && (a.autofix.applied.length || a.autofix.refused.length)) {
    const n = node(id, 'autofix', runId, 'structural fixes', 'passed', {
      description: `${a.autofix.applied.length} applied, ${a.autofix.refused.length} refused`,
    });
    n.children = [
      ...a.autofix.applied.map((f, i) =>
        node(n.id, `fix:${i}`, runId, f.description, 'passed', { description: `${f.code} in ${f.file}`, file: { path: f.file } }),
      ),
      ...a.autofix.refused.map((f, i) =>
        node(n.id, `refusedFix:${i}`, runId, f.description, 'skipped', { description: `refused: touches ${f.files.join(', ')}` }),
      ),
    ];
    out.push(n);
  }
  if (a.diagnostics) {
    const errors = a.diagnostics.diagnostics.filter((d) => d.category === 'error');
    const n = node(id, 'diagnostics', runId, 'diagnostics', a.diagnostics.ok ? 'passed' : 'failed', {
      description: a.diagnostics.ok ? `clean (${a.diagnostics.checkedFiles.length} file(s))` : `${errors.length} error(s)`,
      tooltip: a.diagnostics.checkedBy ? `Checked by ${a.diagnostics.checkedBy}` : undefined,
    });
    n.children = a.diagnostics.diagnostics.map((d, i) =>
      node(n.id, `diag:${i}`, runId, `${d.code} ${d.file}:${d.line}`, d.category === 'error' ? 'failed' : 'warning', {
        description: d.message,
        tooltip: d.message,
        file: { path: d.file, line: d.line },
      }),
    );
    out.push(n);
  }
  if (a.lint)
    out.push(
      node(id, 'lint', runId, 'lint', a.lint.status === 'passed' ? 'passed' : a.lint.status === 'skipped' ? 'skipped' : 'failed', {
        description: a.lint.detail ?? `${a.lint.problems.length} problem(s)`,
      }),
    );
  if (a.tests) {
    const t = a.tests;
    const n = node(id, 'tests', runId, 'tests', t.status === 'passed' ? 'passed' : 'failed', {
      description: `${t.passed} passed, ${t.failed} failed${t.status === 'timeout' ? ', timed out' : ''}`,
    });
    n.children = t.cases
      .filter((c) => c.status === 'failed')
      .map((c, i) =>
        node(n.id, `case:${i}`, runId, c.name, 'failed', {
          description: c.message,
          tooltip: c.stack ?? c.message,
          file: c.file ? { path: c.file } : undefined,
        }),
      );
    out.push(n);
  }
  if (a.diagnosis) {
    const d = a.diagnosis;
    const n = node(id, 'diagnosis', runId, `the Debugger says ${whatIsWrong(d.kind)} is wrong`, 'warning', {
      description: d.claim,
      tooltip: `${d.claim}\n\nBrief: ${d.brief}`,
    });
    n.children = d.evidence.map((e, i) =>
      node(n.id, `quote:${i}`, runId, `"${e.quote}"`, 'pending', {
        icon: 'quote',
        description: e.file ?? sourceWords(e.source),
        file: e.file ? { path: e.file } : undefined,
      }),
    );
    out.push(n);
  } else if (a.diagnosis === null) {
    out.push(
      node(id, 'diagnosis', runId, 'the Debugger gave no usable diagnosis', 'skipped', {
        description: a.rejectedDiagnoses.map((r) => r.reason).join('; ') || undefined,
      }),
    );
  }
  if (a.route) {
    out.push(
      node(id, 'route', runId, `sent ${routeWords(a.route.route)}`, a.route.verdict === 'overridden' ? 'warning' : 'passed', {
        icon: 'git-merge',
        description: `${guardWords(a.route.verdict)}${a.route.claimed && a.route.claimed !== a.route.route ? `; the Debugger said ${whatIsWrong(a.route.claimed)}` : ''}`,
        tooltip: a.route.detail + (a.route.fact ? `\nFact: ${a.route.fact.detail}` : ''),
      }),
    );
  }
  for (const r of a.rungs)
    out.push(node(id, `rung:${r.rung}`, runId, rungWords(r.rung), 'warning', { icon: 'debug-restart', description: r.reason }));
  return out;
}

/** How a run stands, in words: how it ended, or that it goes on, or that its process died. */
export function runOutcome(state: RunState, status: DisplayStatus): string {
  // The correction is a row of its own (its id in the run's tooltip): a narrow tree keeps the words.
  const how = state.finished ? outcomeLine(state.finished, { requestIds: false, gateNames: false }) : undefined;
  // A rolled-back run's changes are gone: what it once reached is history, said after.
  if (state.rolledBack) return how ? `files put back · before that: ${how}` : 'files put back';
  if (how) return how;
  return status === 'interrupted' ? 'interrupted: its process is gone (Resume Run continues it)' : outcomeWords('running');
}

export { startedLabel } from './time';

/** How the host shows times: its time zone (undefined: the system's). */
export interface ViewClock {
  timeZone?: string;
}

/**
 * The tree of one run: attempts, each with its checks, diagnosis and route; then gates and corrections.
 * `status` is what the window knows beyond the log: `interrupted` (src/core/run/liveness.ts).
 * `now` is the host's clock: a view reads none of its own, so it is the same in a test.
 */
export function runNode(state: RunState, now: Date, status: DisplayStatus = state.status, clock: ViewClock = {}): RunNode {
  const runId = state.runId;
  const id = `run:${runId}`;
  // The scripted model says it is one on every row, in words a newcomer reads: it replays a recording.
  const scripted = state.model?.scripted ? 'recorded' : '';
  const title = state.manifest?.title;
  const shown: RowStatus = state.rolledBack ? 'rolledBack' : status;
  const outcome = runOutcome(state, status);
  const when = state.startedAt ? agoWords(state.startedAt, now, clock.timeZone) : undefined;
  const ticket = state.ticketId || '(unknown ticket)';
  const root: RunNode = {
    id,
    // The ticket, its outcome in the icon, and when: a sidebar of default width shows all three,
    // and two runs of one ticket differ by their time. The rest is in the tooltip.
    label: ticket,
    // A rolled-back run's grey icon alone would not say what happened to its files.
    description: [state.rolledBack ? 'rolled back' : undefined, when, scripted].filter(Boolean).join(' · '),
    tooltip: [
      `${ticket}${title ? `: ${title}` : ''}`,
      outcome,
      `Run ${runId}, started ${state.startedAt ? localTime(state.startedAt, clock.timeZone) : 'at an unknown time'}${state.finished && state.updatedAt ? `, last event ${localTime(state.updatedAt, clock.timeZone)}` : ''}`,
      `Ticket ${state.ticketPath}`,
      `Model: ${modelLabel(state)}`,
      `${state.usage.calls} model call(s), ${state.usage.inputTokens + state.usage.outputTokens} tokens, $${state.usage.costUsd.toFixed(4)}`,
      ...(state.rolledBack ? ['Rolled back: the files it wrote were put back as they were before the run.'] : []),
    ].join('\n'),
    contextValue: `run.${status}${state.rolledBack ? '.rolledBack' : ''}`,
    accessibleLabel: '',
    runId,
    ...STATUS_ICONS[shown],
    children: [],
  };
  // The outcome in words, once: "passed" is both the status and the outcome line of a pass.
  const said = outcome.startsWith(STATUS_WORDS[shown]) ? outcome : `${STATUS_WORDS[shown]}, ${outcome}`;
  root.accessibleLabel = [ticket, said, when, scripted && 'recorded sample'].filter(Boolean).join(', ');
  // Where the run's tests and tools ran, first: a run without the sandbox must not look like one with it.
  if (state.sandbox)
    root.children.push(
      node(id, 'sandbox', runId, sandboxLabel(state.sandbox)!, state.sandbox.on ? 'passed' : 'warning', {
        icon: state.sandbox.on ? 'shield' : 'warning',
      }),
    );
  for (const a of state.attempts) {
    const why = whyAttemptFailed(a);
    const an = node(id, `attempt:${a.n}`, runId, `attempt ${a.n}`, a.status, {
      description: [
        why ? `failed: ${why}` : undefined,
        a.recheck ? `no new code: ${a.recheck}` : a.brief ? `the Debugger's brief: ${a.brief}` : `${a.files.length} file(s)`,
      ]
        .filter(Boolean)
        .join(' · '),
    });
    an.children = checkNodes(an.id, runId, a);
    root.children.push(an);
  }
  if (state.gates.length) {
    const g = node(
      id,
      'gates',
      runId,
      'gates',
      state.gates.every((x) => x.status !== 'failed' && x.status !== 'error') ? 'passed' : 'failed',
    );
    g.children = state.gates.map((x, i) =>
      node(g.id, `gate:${i}`, runId, gateWords(x.gate), x.status === 'passed' ? 'passed' : x.status === 'skipped' ? 'skipped' : 'failed', {
        description: `${x.detail}${x.repaired ? ' (repaired)' : ''}`,
      }),
    );
    root.children.push(g);
  }
  for (const c of state.corrections) {
    const { shown: decided, afterDecision } = decisionWords(c.status, state.rolledBack);
    const status: RowStatus =
      decided === 'pending' ? 'needsOperator' : decided === 'accepted' ? 'passed' : decided === 'rejected' ? 'failed' : decided;
    root.children.push(
      node(id, `correction:${c.request.id}`, runId, `correction: ${whatIsWrong(c.request.target)} is wrong`, status, {
        description:
          c.status === 'pending'
            ? 'waiting for your decision'
            : // Undone by the rollback: what matters now fits the row; who accepted it is the page's.
              afterDecision
              ? `${c.status}${afterDecision}`
              : `${c.status}${c.by ? ` by ${deciderWords(c.by)}` : ''}${c.reason ? `: ${c.reason}` : ''}`,
        tooltip: `${c.request.fact.detail}${c.request.claim ? `\n\n${c.request.claim.text}` : ''}`,
        file: c.request.fact.file ? { path: c.request.fact.file, line: c.request.fact.line } : undefined,
      }),
    );
  }
  if (state.rolledBack) root.children.push(node(id, 'rolledBack', runId, 'rolled back', 'skipped', { icon: 'discard' }));
  return root;
}

/**
 * A run's tab title: the ticket, when it started and where it stands, so two runs of one ticket
 * are told apart at a glance. `now` is the host's clock, as for `runNode`.
 */
export function runTitle(
  state: RunState,
  now: Date,
  status: DisplayStatus = state.status,
  mode: 'live' | 'replay' = 'live',
  clock: ViewClock = {},
): string {
  const when = startedLabel(state.startedAt, now, clock.timeZone);
  // A replay part way through is not a running run: it says nothing of a status until its end.
  const where = mode === 'replay' && status === 'running' ? '' : ` · ${runStatusWords(state, status)}`;
  return `${mode === 'replay' ? 'Replay ' : ''}${state.ticketId || state.runId}${when ? ` ${when}` : ''}${where}`;
}
