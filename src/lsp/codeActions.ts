import { CodeActionKind, type CodeAction, type Diagnostic, type Range, type TextEdit } from 'vscode-languageserver';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { isCodePath } from '../core/schema/paths';
import { placeholderCase, placeholderDeclare } from '../core/ticket/ticketTemplate';
import { closestPath } from './closestPath';
import { list, type Fix } from './ticketFindings';
import type { TextChange, TicketSource } from './ticketSource';
import type { WorkspaceFacts } from './ticketWorkspace';

/** A name in a criterion's text that could be a symbol: `Post.publishedAt`, listPosts. */
const NAME = /[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*/g;
const MAX_NAMES = 40;

/**
 * Quick fixes for the server's findings (a scope path to the closest existing file, a declaration
 * to fill in for a scope.write file the ticket creates, a test-case skeleton for a criterion with none), and, on an acceptance criterion, a `refs` entry for each
 * symbol its text names that a scope file declares and `refs` does not list yet.
 */
export async function codeActions(
  doc: TextDocument,
  source: TicketSource,
  ws: WorkspaceFacts,
  range: Range,
  diagnostics: Diagnostic[],
): Promise<CodeAction[]> {
  const uri = doc.uri;
  const edit = (changes: TextChange[]) => ({
    changes: {
      [uri]: changes.map((c): TextEdit => ({
        range: { start: doc.positionAt(c.offset), end: doc.positionAt(c.offset + c.length) },
        newText: c.content,
      })),
    },
  });
  const raw = (source.value ?? {}) as {
    acceptance?: unknown;
    scope?: { write?: unknown; read?: unknown };
    refs?: unknown;
    ops?: unknown;
    testPlan?: { files?: unknown };
  };
  const actions: CodeAction[] = [];

  for (const d of diagnostics) {
    const fix = (d.data as { fix?: Fix } | undefined)?.fix;
    if (fix?.kind === 'scopePath') {
      const to = closestPath(fix.value, await ws.listFiles());
      if (to)
        actions.push({
          title: `Change to "${to}"`,
          kind: CodeActionKind.QuickFix,
          diagnostics: [d],
          isPreferred: true,
          edit: edit(source.set(fix.path, to)),
        });
      if (fix.declare) {
        const op = placeholderDeclare(fix.declare);
        const changes = Array.isArray(raw.ops) ? source.set(['ops', raw.ops.length], op, true) : source.set(['ops'], [op]);
        actions.push({
          title: `List what ${fix.declare} will export: the ticket adds those declarations to it before the Coder starts`,
          kind: CodeActionKind.QuickFix,
          diagnostics: [d],
          edit: edit(changes),
        });
      }
    } else if (fix?.kind === 'testCase') {
      const files = list(raw.testPlan?.files);
      if (!files.length) continue;
      const cases = list((files[0] as { cases?: unknown }).cases);
      actions.push({
        title: `Add a test case for ${fix.criterion}`,
        kind: CodeActionKind.QuickFix,
        diagnostics: [d],
        edit: edit(source.set(['testPlan', 'files', 0, 'cases', cases.length], placeholderCase(fix.criterion), true)),
      });
    }
  }

  const start = doc.offsetAt(range.start);
  const cursor = source.locate(start);
  if (cursor?.path[0] === 'acceptance' && typeof cursor.path[1] === 'number') {
    const criterion = list(raw.acceptance)[cursor.path[1]] as { text?: unknown } | undefined;
    if (typeof criterion?.text === 'string') {
      for (const ref of await namedRefs(criterion.text, raw, ws)) {
        const refs = list(raw.refs);
        const changes = Array.isArray(raw.refs) ? source.set(['refs', refs.length], ref, true) : source.set(['refs'], [ref]);
        actions.push({ title: `Add refs entry ${ref.symbol} (${ref.file})`, kind: CodeActionKind.QuickFix, edit: edit(changes) });
      }
    }
  }
  return actions;
}

/** The symbols a criterion's text names that a scope file declares and `refs` lacks. */
async function namedRefs(
  text: string,
  raw: { scope?: { write?: unknown; read?: unknown }; refs?: unknown },
  ws: WorkspaceFacts,
): Promise<{ symbol: string; file: string }[]> {
  const port = ws.checks.diagnostics;
  if (!port?.symbolsOf) return [];
  const listed = new Set(list(raw.refs).map((r) => (r as { symbol?: unknown })?.symbol));
  const files = [...list(raw.scope?.write), ...list(raw.scope?.read)].filter((f): f is string => typeof f === 'string' && isCodePath(f));
  const names = [...new Set(text.match(NAME) ?? [])].filter((n) => !listed.has(n)).slice(0, MAX_NAMES);
  const out: { symbol: string; file: string }[] = [];
  for (const file of files) {
    if (!(await ws.checks.workspace.exists(file))) continue;
    const exported = new Set((await port.symbolsOf(file)).map((e) => e.name));
    for (const name of names) {
      if (out.some((o) => o.symbol === name) || !exported.has(name.split('.')[0]!)) continue;
      if ((await port.resolveSymbol(file, name)) !== null) out.push({ symbol: name, file });
    }
  }
  return out;
}
