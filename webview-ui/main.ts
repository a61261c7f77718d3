import '@vscode-elements/elements/dist/vscode-badge/index.js';
import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-collapsible/index.js';
import '@vscode-elements/elements/dist/vscode-progress-ring/index.js';
import '@vscode-elements/elements/dist/vscode-textarea/index.js';
import './styles.css';
import {
  checkLines,
  deciderWords,
  decisionWords,
  gateDetailWords,
  gateWords,
  guardWords,
  localClock,
  modelLabel,
  outcomeLine,
  parseHostMessage,
  QUICK_FIXES,
  RECORDED_SAMPLE,
  routeWords,
  rungWords,
  runStatusWords,
  sandboxLabel,
  sourceWords,
  judgedByText,
  verdictLines,
  verdictText,
  whatIsWrong,
  whyAttemptFailed,
  type HandlerMap,
  type HostMessage,
  type RunStateView,
  type TimelineEntry,
  type WebviewMessage,
} from '../src/shared/protocol';
import { lineDiff, withContext } from './diff';
import { listen, patchChildren } from './patch';

/**
 * The run webview: the timeline, the attempts with diffs between them, each diagnosis with
 * its quotes linked to file and line, the route and the guard's verdict, and the correction
 * panel. It shows only what the host sends (RunState reduced from the log) and never reads
 * facts out of strings. Every inbound message is validated; an invalid one is refused and
 * the refusal shown.
 */

type RunMessage = Extract<HostMessage, { type: 'run/state' }>;
type Attempt = RunStateView['attempts'][number];

interface Persisted {
  runId?: string;
  mode?: 'live' | 'replay';
  rejectDraft?: string;
  rejecting?: boolean;
  open?: number[];
  /** The newest attempt this view has seen: a newer one opens by itself, and no update closes one. */
  newest?: number;
  /** The last state the host sent: shown at once when the view comes back, before the host answers `ready`. */
  last?: unknown;
}

const vscode = acquireVsCodeApi();
const persisted: Persisted = (vscode.getState() as Persisted | undefined) ?? {};
const save = () => vscode.setState(persisted);

let current: RunMessage | undefined;
const errors: string[] = [];
const pending = new Map<string, string>();
let nextId = 1;
/** The replay position last asked of the host. */
let lastSeek: number | undefined;

function post(message: WebviewMessage): void {
  vscode.postMessage(message);
}

type Request = Extract<WebviewMessage, { id: string }>;
type WithoutId<T> = T extends unknown ? Omit<T, 'id'> : never;

function request(message: WithoutId<Request>, label: string): void {
  const id = `r${nextId++}`;
  pending.set(id, label);
  post({ ...message, id });
  render();
}

type Child = Node | string | null | undefined | false;
function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs?: Record<string, string | boolean | undefined>,
  ...children: Child[]
): HTMLElementTagNameMap[K];
function h(tag: string, attrs?: Record<string, string | boolean | undefined>, ...children: Child[]): HTMLElement;
function h(tag: string, attrs: Record<string, string | boolean | undefined> = {}, ...children: Child[]): HTMLElement {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === false) continue;
    el.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children) if (c !== null && c !== undefined && c !== false) el.append(c);
  return el;
}

const icon = (name: string, cls = '') => h('span', { class: `codicon codicon-${name} ${cls}`.trim(), 'aria-hidden': 'true' });

const STATUS_ICON: Record<string, [string, string]> = {
  ok: ['pass', 'ok'],
  passed: ['pass', 'ok'],
  failed: ['error', 'bad'],
  error: ['error', 'bad'],
  info: ['circle-small', 'muted'],
  warning: ['warning', 'warn'],
  needsOperator: ['question', 'warn'],
  running: ['loading', 'muted'],
  pending: ['circle-outline', 'muted'],
  cancelled: ['debug-stop', 'muted'],
  // Skipped is not passed: its own icon, never a green check.
  skipped: ['circle-slash', 'muted'],
  accepted: ['pass', 'ok'],
  rejected: ['close', 'bad'],
  // Its changes are gone, whatever it once reached: never a green check.
  rolledBack: ['discard', 'muted'],
  // A replay part way through: where it is, not a spinner.
  replaying: ['history', 'muted'],
  notChecked: ['circle-slash', 'muted'],
};
const capitalized = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

const statusIcon = (s: string) => {
  const [name, cls] = STATUS_ICON[s] ?? ['circle-small', 'muted'];
  return icon(name, cls);
};

function fileLink(path: string, line?: number, label?: string): HTMLElement {
  const a = h(
    'a',
    {
      href: '#',
      class: 'file-link',
      'data-path': path,
      'data-line': line ? String(line) : undefined,
      title: `Open ${path}${line ? `:${line}` : ''}`,
    },
    label ?? `${path}${line ? `:${line}` : ''}`,
  );
  listen(a, {
    click: (e) => {
      e.preventDefault();
      post({ type: 'file/open', path, line });
    },
  });
  return a;
}

/** Where the run stands as the page shows it: a replay part way through says where it is, never "running". */
function shownStatus(m: RunMessage): { key: string; words: string } {
  const s = m.state;
  if (s.rolledBack) return { key: 'rolledBack', words: runStatusWords(s, s.status) };
  if (m.mode === 'replay' && !s.finished) return { key: 'replaying', words: `replay: event ${m.position.seq + 1} of ${m.position.total}` };
  return { key: s.status, words: runStatusWords(s, s.status) };
}

function header(m: RunMessage): HTMLElement {
  const s = m.state;
  const model = modelLabel(s);
  const shown = shownStatus(m);
  return h(
    'header',
    { class: 'header', id: 'header' },
    h('h1', {}, statusIcon(shown.key), ` ${s.ticketId || s.runId}`),
    h('vscode-badge', { id: 'status', variant: 'counter', 'data-status': shown.key }, shown.words),
    s.model?.scripted ? h('span', { class: 'chip warn', id: 'scripted' }, RECORDED_SAMPLE) : null,
    s.sandbox ? h('span', { class: s.sandbox.on ? 'chip' : 'chip warn', id: 'sandbox' }, sandboxLabel(s.sandbox)) : null,
    h(
      'div',
      { class: 'muted' },
      // A recorded sample is named once, by its chip: the script it replays is the log's detail.
      `Run ${s.runId} · ${s.model?.scripted ? '' : `${model} · `}${s.usage.calls} model call(s), ${s.usage.inputTokens + s.usage.outputTokens} tokens, $${s.usage.costUsd.toFixed(4)}`,
    ),
  );
}

function errorBanner(): HTMLElement | null {
  if (!errors.length) return null;
  return h('div', { class: 'error-banner', id: 'error', role: 'alert' }, icon('error'), ' ', errors[errors.length - 1]);
}

function replayBar(m: RunMessage): HTMLElement | null {
  if (m.mode !== 'replay') return null;
  const { seq, total } = m.position;
  const seek = (to: number) => {
    lastSeek = Math.max(0, Math.min(total - 1, to));
    post({ type: 'run/seek', seq: lastSeek });
  };
  const btn = (label: string, iconName: string, to: number, id: string) => {
    const b = h('vscode-button', { secondary: true, id, title: label }, icon(iconName));
    listen(b, { click: () => seek(to) });
    return b;
  };
  const at = m.timeline.filter((t) => t.seq <= seq).pop();
  const range = h('input', {
    type: 'range',
    min: '0',
    max: String(Math.max(0, total - 1)),
    step: '1',
    value: String(seq),
    id: 'replay-range',
    'aria-label': 'Replay position',
    'aria-valuetext': `event ${seq + 1} of ${total}${at ? `: ${at.label}` : ''}`,
  });
  // Arrow keys, Page Up and Down, Home and End move a native slider and fire `input` at each step.
  // The live slider is the one the event names: the page keeps its first element and patches it, so
  // `range` here may be a copy that was never shown.
  listen(range, { input: (e) => seek(Number((e.currentTarget as HTMLInputElement).value)) });
  return h(
    'section',
    { class: 'replay', id: 'replay' },
    h('strong', {}, 'Replay '),
    `event ${seq + 1} of ${total} `,
    btn('First', 'debug-restart', 0, 'replay-first'),
    btn('Back', 'arrow-left', seq - 1, 'replay-back'),
    range,
    btn('Forward', 'arrow-right', seq + 1, 'replay-forward'),
    btn('Last', 'debug-continue', total - 1, 'replay-last'),
  );
}

function proposal(c: RunStateView['corrections'][number]): HTMLElement {
  const p = c.request.proposal;
  const { heading } = decisionWords(c.status, false);
  switch (p.kind) {
    case 'scopeAddition':
      return h(
        'div',
        { class: 'proposal' },
        h('strong', {}, `${heading}: add files to the scope: `),
        ...p.paths.flatMap((x, i) => [i ? ', ' : '', h('code', {}, x)]),
      );
    case 'testPlan':
      // The expectations are shown as the test code they render to (renderedTestsView), not as JSON.
      return h(
        'div',
        { class: 'proposal' },
        h('strong', {}, `${heading}: a corrected test plan`),
        ` (${p.testPlan.files.reduce((n, f) => n + f.cases.length, 0)} test case(s))`,
      );
    case 'ticketEdit':
      return h('div', { class: 'proposal' }, h('strong', {}, `${heading} ticket edit: `), p.summary);
    case 'ticketUnclear':
      return h('div', { class: 'proposal' }, h('strong', {}, `Ticket unclear, ${p.where}: `), h('q', {}, p.quote), ` ${p.change}`);
    case 'none':
      return h('div', { class: 'proposal' }, h('strong', {}, 'No change proposed: '), p.why);
  }
}

/** A button that asks the host to open VS Code's diff editor on one file of a pending proposal. */
function diffButton(m: RunMessage, requestId: string, label: string, key: string, test?: string): HTMLElement {
  const b = h(
    'vscode-button',
    { secondary: true, class: 'open-diff', 'data-key': key, 'data-test': test, title: 'Both sides in the diff editor, read-only' },
    icon('diff'),
    `\u00a0${label}`,
  );
  listen(b, {
    click: () => request({ type: 'proposal/diff', runId: m.state.runId, requestId, ...(test ? { test } : {}) }, 'Open in diff editor'),
  });
  return b;
}

/** Which file Accept changes, said first, so the decision is made on what will happen. */
function acceptChanges(c: RunStateView['corrections'][number], rolledBack: boolean): HTMLElement | null {
  const v = c.preview;
  if (!v || v.problem !== undefined) return null;
  const { rewrite: verb, afterRewrite } = decisionWords(c.status, rolledBack);
  const what =
    c.request.proposal.kind === 'scopeAddition'
      ? 'its scope (the files the Coder may change)'
      : c.request.proposal.kind === 'testPlan'
        ? 'its test plan, and the tests are rendered again'
        : 'the ticket';
  return h('p', { class: 'accept-changes' }, icon('edit'), h('strong', {}, ` ${verb} `), fileLink(v.path), `: ${what}.${afterRewrite}`);
}

/** The whole change Accept writes into the ticket, as a diff; the diff editor's button comes first. */
function previewView(m: RunMessage, c: RunStateView['corrections'][number]): HTMLElement | null {
  const v = c.preview;
  if (!v) return null;
  if (v.problem !== undefined) return h('p', { class: 'preview-problem' }, h('strong', {}, 'Accepting cannot apply: '), v.problem);
  // Which file Accept changes is said just above (acceptChanges): the diff is titled by what it shows.
  const title = decisionWords(c.status, m.state.rolledBack).changeTitle;
  const lines = (v.diff ?? '').split('\n').filter((l) => !l.startsWith('--- ') && !l.startsWith('+++ '));
  return h(
    'div',
    { class: 'diff preview', 'data-key': `preview-${c.request.id}`, 'data-path': v.path },
    h(
      'div',
      { class: 'diff-title' },
      h('strong', {}, title),
      fileLink(v.path),
      ' ',
      c.status === 'pending' ? diffButton(m, c.request.id, 'Open in diff editor', `diff-ticket-${c.request.id}`) : null,
    ),
    h(
      'pre',
      { tabindex: '0', 'aria-label': `Changes to ${v.path}` },
      ...lines.map((l) =>
        h('span', { class: l.startsWith('+') ? 'add' : l.startsWith('-') ? 'del' : l.startsWith('@@') ? 'gap' : 'ctx' }, `${l}\n`),
      ),
    ),
  );
}

/** The rendered tests now and after Accept renders them again: the expectations as the code that will run. */
function renderedTestsView(m: RunMessage, c: RunStateView['corrections'][number]): HTMLElement | null {
  const files = m.proposalTests?.find((p) => p.requestId === c.request.id)?.files ?? [];
  if (!files.length) return null;
  return h(
    'div',
    { class: 'rendered-tests', 'data-key': `rendered-${c.request.id}` },
    ...files.map((f) =>
      h(
        'div',
        { class: 'diff rendered', 'data-key': `rendered-${f.path}`, 'data-path': f.path },
        h(
          'div',
          { class: 'diff-title' },
          h('strong', {}, 'The rendered test '),
          h('code', {}, f.path),
          h('span', { class: 'muted' }, ' now and after Accept '),
          c.status === 'pending' ? diffButton(m, c.request.id, 'Open in diff editor', `diff-test-${c.request.id}-${f.path}`, f.path) : null,
        ),
        h(
          'pre',
          { tabindex: '0', 'aria-label': `The rendered ${f.path}, before and after` },
          ...withContext(lineDiff(f.before, f.after)).map((l) =>
            l === null
              ? h('span', { class: 'gap' }, '⋯\n')
              : h('span', { class: l.op === '+' ? 'add' : l.op === '-' ? 'del' : 'ctx' }, `${l.op} ${l.text}\n`),
          ),
        ),
      ),
    ),
  );
}

function correctionPanel(m: RunMessage): HTMLElement | null {
  if (!m.state.corrections.length) return null;
  const section = h('section', { class: 'correction', id: 'correction' }, h('h2', {}, icon('question'), ' Correction request'));
  for (const c of [...m.state.corrections].reverse()) {
    const r = c.request;
    const { shown, afterDecision } = decisionWords(c.status, m.state.rolledBack);
    const box = h(
      'div',
      { class: `correction-box ${shown}`, 'data-key': `correction-${r.id}`, 'data-request-id': r.id, 'data-status': c.status },
      h(
        'div',
        {},
        statusIcon(shown),
        h('strong', {}, ` ${capitalized(whatIsWrong(r.target))} is wrong`),
        h(
          'span',
          { class: 'muted' },
          ` · ${c.status === 'pending' ? 'waiting for your decision' : c.status}${c.by ? ` by ${deciderWords(c.by)}` : ''}${afterDecision}`,
        ),
      ),
      h(
        'p',
        { class: 'fact' },
        h('strong', {}, 'Machine fact: '),
        r.fact.detail,
        ' ',
        r.fact.file ? fileLink(r.fact.file, r.fact.line) : null,
      ),
      r.claim ? h('p', { class: 'claim' }, h('strong', {}, 'Debugger: '), r.claim.text) : null,
      r.claim?.evidence.length
        ? h(
            'ul',
            { class: 'quotes' },
            ...r.claim.evidence.map((e) =>
              h(
                'li',
                {},
                h('q', {}, e.quote),
                ' ',
                h('span', { class: 'muted' }, `from ${sourceWords(e.source)}`),
                ' ',
                e.file ? fileLink(e.file) : null,
              ),
            ),
          )
        : null,
      acceptChanges(c, m.state.rolledBack),
      proposal(c),
      previewView(m, c),
      renderedTestsView(m, c),
      c.reason ? h('p', {}, h('strong', {}, 'Reason: '), c.reason) : null,
    );
    if (c.status === 'pending') box.append(decisionControls(m, r.id));
    section.append(box);
  }
  return section;
}

/**
 * Focuses an element once it has rendered: a vscode-elements control draws its inner input (where
 * its focus goes) and takes its new `disabled` a moment after the update, and focusing it before
 * that leaves the keyboard on the page's body.
 */
function focusWhenReady(id: string): void {
  const el: (HTMLElement & { updateComplete?: Promise<unknown> }) | null = document.getElementById(id);
  if (!el) return;
  void (el.updateComplete ?? Promise.resolve()).then(() => el.focus());
}

function decisionControls(m: RunMessage, requestId: string): HTMLElement {
  // Only a decision under way holds the buttons: opening a diff does not.
  const busy = [...pending.values()].some((l) => l === 'Accept' || l === 'Reject');
  const rejecting = persisted.rejecting === true;
  const wrap = h('div', { class: 'decide' });
  if (!m.canDecide) {
    wrap.append(h('p', { class: 'muted' }, 'Decisions are off here: the workspace is untrusted, or the run is still going.'));
    return wrap;
  }
  // While a rejection is being written, Accept is off: one decision at a time.
  const accept = h('vscode-button', { id: 'accept', disabled: busy || rejecting }, icon('check'), ' Accept');
  listen(accept, { click: () => request({ type: 'correction/accept', runId: m.state.runId, requestId }, 'Accept') });
  const reject = h('vscode-button', { id: 'reject', secondary: true, disabled: busy || rejecting }, icon('close'), ' Reject…');
  listen(reject, {
    click: () => {
      persisted.rejecting = true;
      save();
      render();
      focusWhenReady('reject-reason');
    },
  });
  wrap.append(accept, ' ', reject);
  const stopRejecting = () => {
    persisted.rejecting = false;
    save();
    render();
    focusWhenReady('reject');
  };
  if (rejecting) {
    const reason = h('vscode-textarea', {
      id: 'reject-reason',
      placeholder: 'Why is the proposed change wrong? (goes into the run log)',
      rows: '3',
      'aria-label': 'Reason for rejecting',
    }) as HTMLElement & { value: string };
    reason.value = persisted.rejectDraft ?? '';
    const confirm = h(
      'vscode-button',
      { id: 'reject-confirm', disabled: busy || !(persisted.rejectDraft ?? '').trim() },
      'Reject with this reason',
    );
    listen(reason, {
      input: (e) => {
        persisted.rejectDraft = (e.currentTarget as HTMLElement & { value: string }).value;
        save();
        render();
      },
    });
    const cancel = h('vscode-button', { id: 'reject-cancel', secondary: true }, 'Cancel');
    listen(cancel, { click: stopRejecting });
    listen(confirm, {
      click: () => {
        const why = (persisted.rejectDraft ?? '').trim();
        if (!why) return;
        persisted.rejecting = false;
        persisted.rejectDraft = '';
        save();
        request({ type: 'correction/reject', runId: m.state.runId, requestId, reason: why }, 'Reject');
      },
    });
    const form = h(
      'div',
      { class: 'reject-form', id: 'reject-form', role: 'group', 'aria-label': 'Reject the proposal' },
      reason,
      h('div', { class: 'reject-buttons' }, confirm, ' ', cancel),
    );
    // Escape anywhere in the form cancels it, keeping the draft for another try.
    listen(form, {
      keydown: (e) => {
        if ((e as KeyboardEvent).key !== 'Escape') return;
        e.preventDefault();
        stopRejecting();
      },
    });
    wrap.append(form);
  }
  if (busy) wrap.append(h('p', { class: 'muted', id: 'busy' }, icon('loading', 'codicon-modifier-spin'), ' Working…'));
  return wrap;
}

/** A model call's control: the host opens its whole prompt and raw answer beside the run, read-only. */
function promptControl(m: RunMessage, call: number): HTMLElement | null {
  if (!m.state.modelCalls[call]?.prompt) return null;
  const a = h(
    'a',
    { href: '#', class: 'prompt-link', 'data-call': String(call), title: 'Open what the model read and answered, beside this view' },
    icon('file-text'),
    ' Prompt and answer',
  );
  listen(a, {
    click: (e) => {
      e.preventDefault();
      post({ type: 'model/show', call });
    },
  });
  return a;
}

function timeline(m: RunMessage): HTMLElement {
  const row = (t: TimelineEntry) =>
    h(
      'li',
      { 'data-key': `event-${t.seq}-${t.call ?? ''}`, 'data-type': t.type, 'data-status': t.status },
      statusIcon(t.status),
      h('span', { class: 'time muted', title: t.ts }, ` ${localClock(t.ts)} `),
      h('span', { class: 'label' }, t.label),
      t.call !== undefined ? ' ' : null,
      t.call !== undefined ? promptControl(m, t.call) : null,
    );
  return h(
    'section',
    { class: 'timeline', id: 'timeline' },
    h('h2', {}, icon('history'), ' Timeline'),
    h('ol', {}, ...m.timeline.map(row)),
  );
}

function previousContent(m: RunMessage, attempts: Attempt[], index: number, path: string): string | undefined {
  for (let k = index - 1; k >= 0; k--) {
    const f = attempts[k]!.files.find((x) => x.path === path);
    if (f) return m.blobs[f.hash];
  }
  const w = attempts[index]!.written.find((x) => x.path === path);
  if (w) return w.before === null ? '' : m.blobs[w.before];
  return undefined;
}

function diffView(m: RunMessage, attempts: Attempt[], index: number): HTMLElement | null {
  const a = attempts[index]!;
  const blocks: HTMLElement[] = [];
  for (const f of a.files) {
    const after = m.blobs[f.hash];
    const before = previousContent(m, attempts, index, f.path);
    if (after === undefined || before === undefined || before === after) continue;
    const lines = withContext(lineDiff(before, after));
    blocks.push(
      h(
        'div',
        { class: 'diff', 'data-key': `diff-${f.path}`, 'data-path': f.path },
        h(
          'div',
          { class: 'diff-title' },
          fileLink(f.path),
          h('span', { class: 'muted' }, index === 0 ? ' vs before the run' : ` vs attempt ${attempts[index - 1]!.n}`),
        ),
        h(
          'pre',
          {},
          ...lines.map((l) =>
            l === null
              ? h('span', { class: 'gap' }, '⋯\n')
              : h('span', { class: l.op === '+' ? 'add' : l.op === '-' ? 'del' : 'ctx' }, `${l.op} ${l.text}\n`),
          ),
        ),
      ),
    );
  }
  return blocks.length ? h('div', { class: 'diffs' }, h('h4', {}, icon('diff'), ' Changes'), ...blocks) : null;
}

/** The type errors under an attempt's type check, each linked to its line. */
function typeErrors(a: Attempt): HTMLElement[] {
  const found = a.diagnostics?.diagnostics ?? [];
  if (!found.length) return [];
  return [h('ul', {}, ...found.map((d) => h('li', {}, fileLink(d.file, d.line), ` ${d.message} `, h('span', { class: 'muted' }, d.code))))];
}

/** Under an attempt's tests: the cases that failed, and what the tests did to the workspace (put back, or, and then the run cannot pass, not). */
function testDetails(a: Attempt): HTMLElement[] {
  const out: HTMLElement[] = [];
  const failed = a.tests?.cases.filter((x) => x.status === 'failed') ?? [];
  if (failed.length) out.push(h('ul', {}, ...failed.map((x) => h('li', {}, h('strong', {}, x.name), x.message ? `: ${x.message}` : ''))));
  const effects = a.tests?.sideEffects ?? [];
  if (effects.length)
    out.push(
      h(
        'ul',
        {},
        ...effects.map((e) =>
          h(
            'li',
            {},
            statusIcon(e.restored ? 'warning' : 'failed'),
            ` ${e.change} ${e.path}: ${e.restored ? 'put back' : 'changed and could not be restored, so this cannot pass'}`,
          ),
        ),
      ),
    );
  return out;
}

/** Whose advice an attempt was given: the diagnosis that holds it is on the page, above. */
function adviceFollowed(attempts: Attempt[], index: number): string {
  const from = attempts
    .slice(0, index)
    .reverse()
    .find((x) => x.diagnosis);
  return from ? `The Coder was given the Debugger's advice from attempt ${from.n}.` : "The Coder was given advice from the run's checks.";
}

function attemptView(m: RunMessage, attempts: Attempt[], index: number): HTMLElement {
  const a = attempts[index]!;
  const open = persisted.open?.includes(a.n) ?? false;
  const why = whyAttemptFailed(a);
  // A pending attempt's step is named once, on the stage line: its header says only that it goes on.
  const c = h('vscode-collapsible', {
    title: `Attempt ${a.n}: ${why ? `failed: ${why}` : a.status === 'pending' ? 'in progress' : a.status}`,
    open,
    class: 'attempt',
    'data-key': `attempt-${a.n}`,
    'data-attempt': String(a.n),
  }) as HTMLElement & { open: boolean };
  listen(c, {
    'vsc-collapsible-toggle': (e) => {
      const set = new Set(persisted.open ?? []);
      if ((e.currentTarget as HTMLElement & { open: boolean }).open) set.add(a.n);
      else set.delete(a.n);
      persisted.open = [...set];
      save();
    },
  });
  const body = h('div', { class: 'attempt-body' });
  if (a.recheck) body.append(h('p', {}, h('strong', {}, 'No new code: '), a.recheck));
  // The advice is the diagnosis's, shown there: this attempt says only whose advice it followed.
  if (a.brief) body.append(h('p', { class: 'muted followed' }, adviceFollowed(attempts, index)));
  // The recovery receipts: which rungs fired on this attempt, and why.
  if (a.rungs.length) {
    body.append(
      h(
        'ul',
        { class: 'rungs' },
        ...a.rungs.map((r) =>
          h(
            'li',
            { class: 'rung', 'data-rung': String(r.rung) },
            icon('debug-restart'),
            h('strong', {}, ` ${capitalized(rungWords(r.rung))}: `),
            r.reason,
          ),
        ),
      ),
    );
  }
  const urgent = a.anomalies.filter((x) => x.score > 0);
  if (urgent.length) {
    body.append(
      h(
        'p',
        { class: 'muted anomalies' },
        icon('warning'),
        ` Anomalies: ${urgent.map((x) => `${x.role} ${x.signals.map((sg) => sg.name).join(', ')} (score ${x.score.toFixed(2)}${x.urgent ? ', urgent' : ''})`).join('; ')}`,
      ),
    );
  }
  const checks = h('ul', { class: 'checks' });
  for (const c of a.cuts ?? []) {
    checks.append(
      h(
        'li',
        { class: 'cut' },
        statusIcon('warning'),
        ` The Coder's answer was cut off at the model's token limit (${c.outputTokens} tokens): its unfinished part was not written${c.final ? '.' : '; it was asked to go on with small edits.'}`,
      ),
    );
  }
  const edits = a.editRefusals ?? [];
  if (edits.length)
    checks.append(
      h(
        'li',
        { class: 'edit-refusals', title: edits.map((e) => e.detail).join('\n\n') },
        statusIcon('info'),
        ` ${edits.length} edit(s) the Coder was told to fix, at no attempt's cost: ${edits.map((e) => e.detail.split('\n', 1)[0]).join(' ')}`,
      ),
    );
  for (const r of a.refused) {
    checks.append(
      h('li', {}, statusIcon('warning'), r.reason === 'elided' ? ` Not written: ${r.detail}` : ` write refused: ${r.path} (${r.reason})`),
    );
  }
  if (a.autofix?.applied.length)
    checks.append(
      h(
        'li',
        { class: 'quick-fixes' },
        statusIcon('ok'),
        ` Fixed by ${QUICK_FIXES}: ${a.autofix.applied.map((f) => f.description).join('; ')}`,
      ),
    );
  // In the verdict's words, so a check reads the same in the attempt that ran it and in the summary.
  for (const l of checkLines(a)) {
    const name = l.key.slice('check:'.length);
    const li = h('li', { 'data-check': name, 'data-status': l.status }, statusIcon(l.status), ` ${verdictText(l)}`);
    if (name === 'types') li.append(...typeErrors(a));
    if (name === 'tests') li.append(...testDetails(a));
    checks.append(li);
  }
  body.append(checks);
  if (a.diagnosis) {
    const d = a.diagnosis;
    body.append(
      h(
        'div',
        { class: 'diagnosis', 'data-kind': d.kind },
        h('h4', {}, icon('search'), ` The Debugger says ${whatIsWrong(d.kind)} is wrong`),
        h('p', {}, d.claim),
        h(
          'ul',
          { class: 'quotes' },
          ...d.evidence.map((e, i) => {
            const at = m.quotes.find((q) => q.attempt === a.n && q.index === i);
            return h(
              'li',
              { class: 'quote' },
              h('q', {}, e.quote),
              ' ',
              h('span', { class: 'muted' }, `from ${sourceWords(e.source)}`),
              ' ',
              at ? fileLink(at.path, at.line) : e.file ? fileLink(e.file) : null,
            );
          }),
        ),
        h('p', { class: 'advice' }, h('strong', {}, 'Advice: '), d.brief),
        d.avoid.length ? h('p', { class: 'advice' }, h('strong', {}, 'Not to try again: '), d.avoid.join('; ')) : null,
      ),
    );
  } else if (a.diagnosis === null) {
    body.append(
      h(
        'p',
        { class: 'muted' },
        'No usable diagnosis',
        a.rejectedDiagnoses.length ? `: ${a.rejectedDiagnoses.map((r) => r.reason).join('; ')}` : '',
      ),
    );
  }
  if (a.route) {
    body.append(
      h(
        'div',
        { class: 'route', 'data-route': a.route.route, 'data-verdict': a.route.verdict },
        icon('git-merge'),
        h('strong', {}, ` Sent ${routeWords(a.route.route)}`),
        ` · ${guardWords(a.route.verdict)}`,
        a.route.claimed && a.route.claimed !== a.route.route ? ` · the Debugger said ${whatIsWrong(a.route.claimed)} is wrong` : '',
        // The router's detail restates the fact in its own terms: the fact is said once, below.
        a.route.fact ? null : h('div', { class: 'muted' }, a.route.detail),
        a.route.fact
          ? h(
              'div',
              {},
              h('strong', {}, 'Fact: '),
              a.route.fact.detail,
              ' ',
              a.route.fact.file ? fileLink(a.route.fact.file, a.route.fact.line) : null,
            )
          : null,
      ),
    );
  }
  const diff = diffView(m, attempts, index);
  if (diff) body.append(diff);
  c.append(body);
  return c;
}

/** The gates as they run: once the run is finished, the verdict says each one's result. */
function gates(m: RunMessage): HTMLElement | null {
  if (!m.state.gates.length || m.state.finished) return null;
  return h(
    'section',
    { class: 'gates', id: 'gates' },
    h('h2', {}, icon('shield'), ' Gates'),
    h(
      'ul',
      {},
      ...m.state.gates.map((g) =>
        h(
          'li',
          { 'data-gate': g.gate },
          statusIcon(g.status),
          ` ${gateWords(g.gate)}: ${gateDetailWords(g)}${g.repaired ? ' (repaired)' : ''}`,
        ),
      ),
    ),
  );
}

/** What a live run is doing now, with a progress ring, and its Cancel when this window drives it. */
function stageBar(m: RunMessage): HTMLElement | null {
  if (m.mode !== 'live' || !m.stage) return null;
  const waiting = m.stage.step === 'waiting';
  const bar = h(
    'section',
    { class: 'stage', id: 'stage', 'data-step': m.stage.step, 'aria-live': 'polite' },
    waiting ? icon('question', 'warn') : h('vscode-progress-ring', { 'aria-label': 'The run is going' }),
    h('span', { id: 'stage-label' }, m.stage.label),
  );
  if (m.canCancel) {
    const busy = [...pending.values()].includes('Cancel');
    const cancel = h(
      'vscode-button',
      { id: 'cancel-run', secondary: true, disabled: busy, title: 'Stop the run; it is recorded as cancelled' },
      icon('debug-stop'),
      busy ? ' Cancelling…' : ' Cancel run',
    );
    listen(cancel, { click: () => request({ type: 'run/cancel', runId: m.state.runId }, 'Cancel') });
    bar.append(cancel);
  }
  return bar;
}

/** How the run ended, in one line; a rolled-back run says first that its files were put back. */
function outcome(m: RunMessage): HTMLElement | null {
  const f = m.state.finished;
  if (!f) return null;
  const how = outcomeLine(f, { requestIds: false, gateNames: false });
  if (m.state.rolledBack)
    return h(
      'p',
      { class: 'outcome', id: 'outcome', 'data-outcome': 'rolledBack' },
      statusIcon('rolledBack'),
      ` Rolled back: the files it wrote were put back. Before that: ${how}.`,
    );
  return h('p', { class: 'outcome', id: 'outcome', 'data-outcome': f.outcome }, statusIcon(f.outcome), ` ${capitalized(how)}`);
}

/**
 * What a finished run checked, each check's result in words, before the attempts that got there;
 * then how many cases judged the change.
 */
function verdict(m: RunMessage): HTMLElement | null {
  const lines = verdictLines(m.state);
  if (!lines.length) return null;
  const judged = judgedByText(m.state);
  return h(
    'section',
    { class: 'verdict', id: 'verdict', 'aria-label': 'What was checked' },
    h('h2', {}, icon('checklist'), ' What was checked'),
    h(
      'ul',
      {},
      ...lines.map((l) => h('li', { 'data-key': `verdict-${l.key}`, 'data-status': l.status }, statusIcon(l.status), ` ${verdictText(l)}`)),
    ),
    ...(judged ? [h('p', { class: 'judged-by', id: 'judged-by' }, `Judged by ${judged}.`)] : []),
  );
}

/** The slider follows the replay (a step button, the host's answer) unless the keyboard is on it mid-move. */
function syncReplayRange(m: RunMessage): void {
  const range = document.getElementById('replay-range') as HTMLInputElement | null;
  if (!range || m.mode !== 'replay') return;
  const want = String(m.position.seq);
  if (range.value !== want && (document.activeElement !== range || lastSeek === m.position.seq)) range.value = want;
}

function render(): void {
  const app = document.getElementById('app')!;
  const m = current;
  const next = h('div');
  if (!m) {
    next.append(
      ...[errorBanner(), h('p', { class: 'muted', id: 'waiting' }, 'Waiting for the run…')].filter((x): x is HTMLElement => x !== null),
    );
    patchChildren(app, next);
    return;
  }
  const attempts = m.state.attempts;
  // A decision to make comes first; once made, how the run ended and what it checked do.
  const deciding = m.state.corrections.some((c) => c.status === 'pending');
  const parts: Child[] = [
    header(m),
    errorBanner(),
    replayBar(m),
    stageBar(m),
    deciding ? correctionPanel(m) : null,
    outcome(m),
    verdict(m),
    deciding ? null : correctionPanel(m),
    h(
      'section',
      { class: 'attempts', id: 'attempts' },
      h('h2', {}, icon('layers'), ` Attempts (${attempts.length})`),
      ...attempts.map((_, i) => attemptView(m, attempts, i)),
    ),
    gates(m),
    timeline(m),
  ];
  next.append(...parts.filter((x): x is Node => x instanceof Node));
  // In place: what the user focused, typed or scrolled stays as it was.
  patchChildren(app, next);
  syncReplayRange(m);
}

function refuse(error: string): void {
  errors.push(`Refused a message from the extension: ${error}`);
  post({ type: 'protocol/error', message: error });
  render();
}

const handlers = {
  'run/state': (m) => {
    current = m;
    if (persisted.runId !== m.state.runId) {
      Object.assign(persisted, { runId: m.state.runId, rejecting: false, rejectDraft: '', open: undefined, newest: undefined });
    }
    // A new attempt opens; the ones before stay as the user left them (closing one under their focus loses it).
    const newest = m.state.attempts[m.state.attempts.length - 1]?.n;
    if (newest !== undefined && newest > (persisted.newest ?? 0)) {
      persisted.open = [...(persisted.open ?? []), newest];
      persisted.newest = newest;
    }
    persisted.mode = m.mode;
    persisted.last = m;
    save();
    render();
  },
  'request/done': (m) => {
    const label = pending.get(m.id);
    pending.delete(m.id);
    if (!m.ok) errors.push(`${label ?? 'Request'} failed: ${m.error ?? 'unknown error'}`);
    render();
  },
  'run/error': (m) => {
    errors.push(m.message);
    render();
  },
} satisfies HandlerMap<HostMessage>;

window.addEventListener('message', (event: MessageEvent<unknown>) => {
  const parsed = parseHostMessage(event.data);
  if (!parsed.ok) return refuse(parsed.error);
  (handlers[parsed.message.type] as (m: HostMessage) => void)(parsed.message);
});

// Shown again at once after a hide and show (the page reloads); the host's answer to `ready` replaces it.
// Parsed like any message: what was saved is not trusted more than what arrives.
if (persisted.last !== undefined) {
  const again = parseHostMessage(persisted.last);
  if (again.ok && again.message.type === 'run/state') current = again.message;
}
render();
post({ type: 'ready' });
