import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-collapsible/index.js';
import '@vscode-elements/elements/dist/vscode-table/index.js';
import '@vscode-elements/elements/dist/vscode-table-body/index.js';
import '@vscode-elements/elements/dist/vscode-table-cell/index.js';
import '@vscode-elements/elements/dist/vscode-table-header/index.js';
import '@vscode-elements/elements/dist/vscode-table-header-cell/index.js';
import '@vscode-elements/elements/dist/vscode-table-row/index.js';
import { StatsHostMessage, type StatsWebviewMessage } from '../src/shared/statsProtocol';

/**
 * The Run Statistics panel: the workspace's runs in figures, as the host sends them in words.
 * It shows only what a valid message holds; an invalid one is refused and the refusal shown.
 */

const vscode = acquireVsCodeApi();
const post = (m: StatsWebviewMessage) => vscode.postMessage(m);

function el(tag: string, attrs: Record<string, string> = {}, ...children: (Node | string)[]): HTMLElement {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  e.append(...children);
  return e;
}

function render(m: StatsHostMessage): void {
  const app = document.getElementById('app')!;
  const refresh = el('vscode-button', { id: 'refresh', secondary: '' }, 'Count again');
  refresh.addEventListener('click', () => post({ type: 'stats/refresh' }));
  const header = el('header', { class: 'stats-header' }, el('h1', {}, 'Run Statistics'), refresh);
  if (!m.runs) {
    app.replaceChildren(header, el('p', { id: 'empty' }, m.empty));
    return;
  }
  const sections = m.sections.map((s) =>
    el('vscode-collapsible', { title: s.title, open: '', class: 'stats-section' }, el('ul', {}, ...s.lines.map((l) => el('li', {}, l)))),
  );
  const [head = [], ...rows] = m.table;
  const table = el(
    'vscode-table',
    { id: 'by-ticket', zebra: '', 'bordered-columns': '', resizable: '' },
    el('vscode-table-header', { slot: 'header' }, ...head.map((h) => el('vscode-table-header-cell', {}, h))),
    el(
      'vscode-table-body',
      { slot: 'body' },
      ...rows.map((r) => el('vscode-table-row', { 'data-ticket': r[0] ?? '' }, ...r.map((c) => el('vscode-table-cell', {}, c)))),
    ),
  );
  app.replaceChildren(header, ...sections, el('vscode-collapsible', { title: 'By ticket', open: '', class: 'stats-section' }, table));
}

window.addEventListener('message', (event: MessageEvent<unknown>) => {
  const parsed = StatsHostMessage.safeParse(event.data);
  if (!parsed.success) {
    document
      .getElementById('app')!
      .append(
        el('p', { class: 'error', role: 'alert' }, `Refused a message from the editor: ${parsed.error.issues[0]?.message ?? 'invalid'}`),
      );
    return;
  }
  render(parsed.data);
});

post({ type: 'ready' });
