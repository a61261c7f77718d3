import type { CodeDiagnostic } from '../../schema/checks';
import type { TicketOp } from '../../schema/ticket';

/**
 * The `declare` op: what a ticket says it creates, each new export with its signature, laid over
 * the code as an ambient declaration (`export declare function slug(title: string): string;`)
 * before the Coder runs. TypeScript checks the rendered tests against it as against any code, so
 * a plan for a function that does not exist yet type-checks as it is written, the Coder is told
 * the signature, and the wrong-test guard has the ticket's own type to hold a test to, not the
 * Coder's. At run time a declaration is nothing (the compilers erase it), so a test of it fails
 * until the Coder writes the code; and one still there after an attempt fails the checks.
 *
 * One renderer serves the op's edit, the editor's ticket check and the validate command, so all
 * three see the same text.
 */

export type DeclareOp = Extract<TicketOp, { op: 'declare' }>;

export const declareOps = (ops: readonly TicketOp[]): DeclareOp[] => ops.filter((o): o is DeclareOp => o.op === 'declare');

/** One declaration as the op writes it: exported, ambient, with no body. */
export function declarationText(declaration: string): string {
  const body = declaration
    .trim()
    .replace(/;\s*$/, '')
    .replace(/^export\s+/, '')
    .replace(/^declare\s+/, '');
  return `export declare ${body}${body.endsWith('}') ? '' : ';'}`;
}

/** The file with the op's declarations added at its end; one already there is not added twice. */
export function withDeclarations(existing: string | null, declarations: readonly string[]): string {
  const base = existing ?? '';
  const missing = declarations.map(declarationText).filter((d) => !base.includes(d));
  if (!missing.length) return base;
  const sep = base === '' ? '' : base.endsWith('\n\n') ? '' : base.endsWith('\n') ? '\n' : '\n\n';
  return `${base}${sep}${missing.join('\n')}\n`;
}

/** The name a declaration declares, when it is one this module can read. */
export function declaredName(declaration: string): string | undefined {
  const m =
    /^export declare\s+(?:abstract\s+)?(?:async\s+)?(?:function\s*\*?|const|let|var|class|interface|type|enum)\s+([A-Za-z_$][\w$]*)/.exec(
      declarationText(declaration),
    );
  return m?.[1];
}

/**
 * The code as the ticket declares it, for a check that runs before anything is written (the
 * editor's, `validate`'s): each declared file's text with its declarations, in memory.
 */
export async function declaredOverlays(
  ops: readonly TicketOp[],
  read: (path: string) => Promise<string | null>,
): Promise<{ path: string; content: string }[]> {
  const byFile = new Map<string, string[]>();
  for (const op of declareOps(ops)) byFile.set(op.file, [...(byFile.get(op.file) ?? []), ...op.exports]);
  const out: { path: string; content: string }[] = [];
  for (const [path, declarations] of byFile) out.push({ path, content: withDeclarations(await read(path), declarations) });
  return out;
}

/**
 * A declaration of a value (not a type) without its code: the one the ticket laid, or the same
 * name declared again without `export` and exported by a list (which compiles to nothing too).
 */
const VALUE_STUB =
  /^[ \t]*(?:export[ \t]+)?declare[ \t]+(?:abstract[ \t]+)?(?:async[ \t]+)?(?:function[ \t]*\*?|const|let|var|class|enum)[ \t]+([A-Za-z_$][\w$]*)/gm;

/**
 * The ticket's declared values that are still only declarations: the Coder has not written
 * them. Each is an error of the attempt, in the checks' own terms. A declared type may stay as
 * it is: an ambient interface or type alias is the type itself.
 */
export async function unimplementedDeclarations(
  ops: readonly TicketOp[],
  read: (path: string) => Promise<string | null>,
): Promise<CodeDiagnostic[]> {
  const out: CodeDiagnostic[] = [];
  const files = new Map<string, Set<string>>();
  for (const op of declareOps(ops)) {
    const names = files.get(op.file) ?? new Set<string>();
    for (const d of op.exports) {
      const name = declaredName(d);
      if (name) names.add(name);
    }
    files.set(op.file, names);
  }
  for (const [file, names] of files) {
    const text = await read(file);
    if (text === null) continue;
    for (const m of text.matchAll(VALUE_STUB)) {
      if (!names.has(m[1]!)) continue;
      const line = text.slice(0, m.index).split('\n').length;
      out.push({
        file,
        line,
        column: 1,
        code: 'declared',
        category: 'error',
        message: `${m[1]} is still only the ticket's declaration (export declare): write its implementation with the declared signature`,
      });
    }
  }
  return out;
}

/** What the Coder is told of the declared exports: the signature to write, file by file. */
export function declaredForCoder(ops: readonly TicketOp[]): string {
  const lines = declareOps(ops).flatMap((op) =>
    op.exports.map((d) => `- ${op.file}: ${declarationText(d).replace(/^export declare /, 'export ')}`),
  );
  return lines.length
    ? `The ticket declares these new exports, already in the code as declarations without a body (export declare). Replace each with its implementation, keeping the signature:\n${lines.join('\n')}`
    : '';
}
