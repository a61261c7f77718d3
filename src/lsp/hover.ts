import type { Hover } from 'vscode-languageserver';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { validateTicket } from '../core/stages/authoring/validateTicket';
import { standingOf, standingWords } from './heldOutView';
import { list } from './ticketFindings';
import type { TicketSource } from './ticketSource';
import type { WorkspaceFacts } from './ticketWorkspace';

const code = (text: string, lang = 'ts') => `\`\`\`${lang}\n${text}\n\`\`\``;

/**
 * Hover in a ticket: on a test-plan entry, the test file a run renders from it (what `render`
 * prints); on a case, whether it is held out from the Coder and its own code as rendered; on a `refs` symbol, its type;
 * on a scope path, what the file exports.
 */
export async function hover(
  doc: TextDocument,
  source: TicketSource,
  ws: Pick<WorkspaceFacts, 'checks'>,
  ticketPath: string,
  offset: number,
  signal: AbortSignal,
): Promise<Hover | null> {
  const cursor = source.locate(offset);
  if (!cursor) return null;
  const { path } = cursor;
  const raw = (source.value ?? {}) as { refs?: unknown };
  const range = (at: (string | number)[]) => {
    const span = source.spanAt(at);
    return span && { start: doc.positionAt(span.offset), end: doc.positionAt(span.offset + span.length) };
  };

  if (path[0] === 'testPlan' && path[1] === 'files' && typeof path[2] === 'number') {
    const i = path[2];
    // Rendering needs no types: the language service is not asked.
    const { findings, rendered, cases } = await validateTicket({ workspace: ws.checks.workspace }, ticketPath, source.text, signal);
    const onCase = path[3] === 'cases' && typeof path[4] === 'number' ? standingOf(ticketPath, source.text, i, path[4]) : undefined;
    // On a case, that case alone, in the file it goes into (the held-out one, for a held-out case).
    const shown = onCase
      ? cases.find((c) => c.path === `$.testPlan.files[${i}].cases[${path[4]}]`)
      : rendered[i] && { file: rendered[i].path, code: rendered[i].content };
    const test = shown
      ? `The test a run renders at \`${shown.file}\`:\n\n${code(shown.code)}`
      : `Not rendered: ${findings.filter((f) => f.severity === 'error').map((f) => `${f.path}: ${f.message}`)[0] ?? 'the test plan has no such file'}`;
    if (!onCase) return { contents: { kind: 'markdown', value: test }, range: range(path.slice(0, 3)) };
    return {
      contents: { kind: 'markdown', value: `${standingWords(onCase.standing, onCase.criterion)}\n\n${test}` },
      range: range(path.slice(0, 5)),
    };
  }

  const symbols = ws.checks.diagnostics;
  if (path[0] === 'refs' && typeof path[1] === 'number' && path[2] === 'symbol' && symbols) {
    const ref = list(raw.refs)[path[1]] as { symbol?: unknown; file?: unknown } | undefined;
    if (typeof ref?.symbol !== 'string' || typeof ref.file !== 'string') return null;
    const type = await symbols.resolveSymbol(ref.file, ref.symbol).catch(() => null);
    const value = type === null ? `\`${ref.symbol}\` does not resolve in \`${ref.file}\`` : code(`${ref.symbol}: ${type}`);
    return { contents: { kind: 'markdown', value }, range: range(path) };
  }

  if (path[0] === 'scope' && (path[1] === 'write' || path[1] === 'read') && typeof path[2] === 'number' && cursor.string) {
    const file = cursor.string.value;
    if (!(await ws.checks.workspace.exists(file).catch(() => false)))
      return { contents: { kind: 'markdown', value: `\`${file}\` does not exist in the workspace` }, range: range(path) };
    const exported = (await symbols?.symbolsOf?.(file).catch(() => [])) ?? [];
    const value = exported.length
      ? `\`${file}\` exports:\n\n${code(exported.map((e) => `${e.name}: ${e.type}`).join('\n'))}`
      : `\`${file}\` exports nothing the language service sees`;
    return { contents: { kind: 'markdown', value }, range: range(path) };
  }
  return null;
}
