import ts from 'typescript';
import type { OpFix, OpResult, OpScope } from '../../core/ports/ops';
import type { TicketOp } from '../../core/schema/ticket';
import { describeError, newErrors, type OpsLanguage } from './language';
import { lineOf, syntaxErrorsIn, type OpsSyntax } from './syntax';

/** What every op implementation gets: the op, its file as the service sees it, and the tools. */
export interface OpInput<O extends TicketOp = TicketOp> {
  op: O;
  /** Workspace-relative. */
  file: string;
  abs: string;
  text: string;
  scope: OpScope;
  lang: OpsLanguage;
  syntax: OpsSyntax;
}

export type OpOf<K extends TicketOp['op']> = Extract<TicketOp, { op: K }>;

export function fail(reason: string, suggestion: string, extra: { at?: { file: string; line: number }; proposal?: OpFix } = {}): OpResult {
  return { ok: false, reason, suggestion, ...extra };
}

/** The op is already in place: nothing to write, and that is a success. */
export const alreadyApplied: OpResult = { ok: true, edits: [] };

/**
 * "Declared but never used" errors (under noUnusedLocals): an import or a field an op adds
 * is there for the Coder to use next, so they say nothing about the op.
 */
const UNUSED = new Set([6133, 6138, 6192, 6196, 6198, 6199, 6205]);

/** Cannot find name: the type an op wrote names something the file does not import. */
const UNKNOWN_NAME = new Set([2304, 2552, 2503, 2694]);

/**
 * Finishes an op that rewrote one file: the text it wrote at [start, end) must parse
 * (Tree-sitter) and bring no new error of its own (the language service). Errors the edit
 * causes elsewhere, such as objects now missing an added field, are the Coder's to fix and
 * do not fail the op; the pipeline records them after the ops.
 */
export async function finishEdit(input: OpInput, after: string, span: { start: number; end: number }, what: string): Promise<OpResult> {
  const broken = await input.syntax.read(input.file, after, (root) =>
    syntaxErrorsIn(root, span.start, span.end).map((n) => n.text || n.type),
  );
  if (broken.length) {
    return fail(
      `${what} does not parse: ${after.slice(span.start, span.end).trim()}`,
      'write the type as TypeScript source, as it would appear after the colon',
      {
        at: { file: input.file, line: lineOf(after, span.start) },
      },
    );
  }
  const { lang, abs } = input;
  const before = lang.errors([abs]);
  const own = newErrors(
    before,
    lang.trial(new Map([[abs, after]]), () => lang.errors([abs])),
  ).filter((e) => e.start >= span.start && e.start <= span.end && !UNUSED.has(e.code));
  if (own.length) {
    const first = own[0]!;
    const suggestion = UNKNOWN_NAME.has(first.code)
      ? `make the name resolve in ${input.file}: put an addImport op before this one, or correct the type`
      : 'correct the op so that its own text type-checks';
    return fail(`${what} does not type-check: ${own.map(describeError).join('; ')}`, suggestion, {
      at: { file: input.file, line: first.line },
    });
  }
  return { ok: true, edits: [{ path: input.file, before: input.text, after }] };
}

/** Replaces [start, end) of `text`. */
export function splice(text: string, start: number, end: number, insert: string): string {
  return text.slice(0, start) + insert + text.slice(end);
}

/** Type text compared loosely: `Array<string>` and `Array< string >` are the same type written twice. */
export function sameTypeText(a: string, b: string): boolean {
  const norm = (s: string) =>
    s
      .replace(/;\s*$/, '')
      .replace(/\s+/g, ' ')
      .replace(/ ?([^\w$ ]) ?/g, '$1')
      .trim();
  return norm(a) === norm(b);
}

/** The type an op asks for, as it goes after a colon. */
export const typeText = (type: string): string => type.trim().replace(/;\s*$/, '');

const RESERVED = new Set(
  (
    'break case catch class const continue debugger default delete do else enum export extends false finally for function if import in ' +
    'instanceof new null return super switch this throw true try typeof var void while with implements interface let package private ' +
    'protected public static yield await'
  ).split(' '),
);

/** Is `name` an identifier (by TypeScript's own character classes)? */
export function isIdentifierText(name: string): boolean {
  const chars = [...name];
  return (
    chars.length > 0 &&
    chars.every((c, i) => (i === 0 ? ts.isIdentifierStart : ts.isIdentifierPart)(c.codePointAt(0)!, ts.ScriptTarget.Latest))
  );
}

/** Can `name` be declared as a variable, function or type? */
export function isDeclarableName(name: string): boolean {
  return isIdentifierText(name) && !RESERVED.has(name);
}

/** The leading whitespace of the line that holds `offset`. */
export function indentAt(text: string, offset: number): string {
  const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
  return /^[ \t]*/.exec(text.slice(lineStart))?.[0] ?? '';
}
