import { CompletionItemKind, InsertTextFormat, InsertTextMode, type CompletionItem } from 'vscode-languageserver';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { relativeModuleFile } from '../core/stages/checks/reach';
import { isCodePath } from '../core/schema/paths';
import { Expectation } from '../core/schema/testPlan';
import { list } from './ticketFindings';
import type { Cursor, TicketSource } from './ticketSource';
import type { WorkspaceFacts } from './ticketWorkspace';

/** The expectation kinds, from the schema itself, with a snippet of each one's required fields. */
export const EXPECTATION_KINDS = Expectation.options.map((o) => o.shape.kind.value);
const SNIPPET_FIELDS: Record<(typeof EXPECTATION_KINDS)[number], string[]> = {
  equal: ['actual', 'expected'],
  truthy: ['actual'],
  throws: ['call'],
  rejects: ['call'],
  // A name ending in [] is a list of code fields: the snippet holds one.
  property: ['arbitraries[]', 'params[]', 'predicate'],
};

const isIndex = (s: unknown): s is number => typeof s === 'number';
const matches = (path: Cursor['path'], pattern: (string | typeof isIndex)[]) =>
  path.length === pattern.length && pattern.every((p, i) => (typeof p === 'string' ? path[i] === p : p(path[i])));

/**
 * Completion in a ticket: workspace files in `scope` and `refs[].file`, the exported names (and
 * members after a dot) of the ref's file in `refs[].symbol`, the exports of the module a test
 * import names in its `names` and `default`, acceptance ids in a case's `criterion`, and the
 * expectation kinds (a whole expectation, as a snippet, in `expect`).
 */
export async function complete(doc: TextDocument, source: TicketSource, ws: WorkspaceFacts, offset: number): Promise<CompletionItem[]> {
  const cursor = source.locate(offset);
  if (!cursor) return [];
  const { path } = cursor;
  const raw = (source.value ?? {}) as { acceptance?: unknown; refs?: unknown; testPlan?: { files?: unknown } };
  const values = (names: { label: string; detail?: string; kind: CompletionItemKind }[]) =>
    names.map((n) => valueItem(doc, source, cursor, offset, n));

  if (!cursor.atKey && (matches(path, ['scope', 'write', isIndex]) || matches(path, ['scope', 'read', isIndex]))) {
    return values((await ws.listFiles()).map((f) => ({ label: f, kind: CompletionItemKind.File })));
  }
  if (!cursor.atKey && matches(path, ['refs', isIndex, 'file'])) {
    return values((await ws.listFiles()).filter(isCodePath).map((f) => ({ label: f, kind: CompletionItemKind.File })));
  }
  if (!cursor.atKey && matches(path, ['refs', isIndex, 'symbol'])) {
    const ref = list(raw.refs)[path[1] as number] as { file?: unknown } | undefined;
    const diagnostics = ws.checks.diagnostics;
    if (typeof ref?.file !== 'string' || !diagnostics?.symbolsOf) return [];
    // What is typed before the cursor, past an opening quote (a plain YAML scalar has none).
    const s = cursor.string;
    const typed = s ? s.value.slice(0, offset - s.offset - (/["']/.test(source.text[s.offset] ?? '') ? 1 : 0)) : '';
    const owner = typed.includes('.') ? typed.slice(0, typed.lastIndexOf('.')) : undefined;
    const entries = await diagnostics.symbolsOf(ref.file, owner);
    return values(
      entries.map((e) => ({
        label: owner ? `${owner}.${e.name}` : e.name,
        detail: e.type,
        kind: owner ? CompletionItemKind.Field : CompletionItemKind.Variable,
      })),
    );
  }
  if (
    !cursor.atKey &&
    (matches(path, ['testPlan', 'files', isIndex, 'imports', isIndex, 'names', isIndex]) ||
      matches(path, ['testPlan', 'files', isIndex, 'imports', isIndex, 'default']))
  ) {
    const file = list(raw.testPlan?.files)[path[2] as number] as { path?: unknown; imports?: unknown } | undefined;
    const from = (list(file?.imports)[path[4] as number] as { from?: unknown } | undefined)?.from;
    const diagnostics = ws.checks.diagnostics;
    if (typeof file?.path !== 'string' || typeof from !== 'string' || !diagnostics?.symbolsOf) return [];
    // Relative to the test file, as the rendered test imports it; a package's names are not the workspace's to list.
    const module = await relativeModuleFile(ws.checks.workspace, file.path, from);
    if (!module) return [];
    return values((await diagnostics.symbolsOf(module)).map((e) => ({ label: e.name, detail: e.type, kind: CompletionItemKind.Variable })));
  }
  if (!cursor.atKey && matches(path, ['testPlan', 'files', isIndex, 'cases', isIndex, 'criterion'])) {
    const ids = list(raw.acceptance).flatMap((a) => {
      const c = a as { id?: unknown; text?: unknown };
      return typeof c?.id === 'string'
        ? [{ label: c.id, detail: typeof c.text === 'string' ? c.text : undefined, kind: CompletionItemKind.EnumMember }]
        : [];
    });
    return values(ids);
  }
  if (!cursor.atKey && matches(path, ['testPlan', 'files', isIndex, 'cases', isIndex, 'expect', isIndex, 'kind'])) {
    return values(EXPECTATION_KINDS.map((k) => ({ label: k, kind: CompletionItemKind.EnumMember })));
  }
  if (!cursor.string && matches(path, ['testPlan', 'files', isIndex, 'cases', isIndex, 'expect', isIndex])) {
    return EXPECTATION_KINDS.map((kind, i) => ({
      label: `${kind} expectation`,
      kind: CompletionItemKind.Snippet,
      insertTextFormat: InsertTextFormat.Snippet,
      sortText: String(i),
      insertText: source.expectationSnippet(kind, SNIPPET_FIELDS[kind], offset),
      insertTextMode: InsertTextMode.asIs,
    }));
  }
  return [];
}

/** An item that replaces the whole string under the cursor (or inserts a quoted one). */
function valueItem(
  doc: TextDocument,
  source: TicketSource,
  cursor: Cursor,
  offset: number,
  n: { label: string; detail?: string; kind: CompletionItemKind },
): CompletionItem {
  const s = cursor.string;
  const range = s
    ? { start: doc.positionAt(s.offset), end: doc.positionAt(s.offset + s.length) }
    : { start: doc.positionAt(offset), end: doc.positionAt(offset) };
  const newText = source.quote(n.label);
  // The client filters on the text the edit replaces, quote included.
  return { label: n.label, detail: n.detail, kind: n.kind, filterText: newText, textEdit: { range, newText } };
}
