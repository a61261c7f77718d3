import ts from 'typescript';
import type { OpResult } from '../../core/ports/ops';
import { declarationText, withDeclarations } from '../../core/stages/ops/declared';
import { alreadyApplied, fail, type OpInput, type OpOf } from './common';
import { describeError, newErrors } from './language';
import { topLevelDeclarations } from './syntax';

/** Cannot find name: a declared type names something the file does not import. */
const UNKNOWN_NAME = new Set([2304, 2552, 2503, 2694]);

/** What one written declaration is, by TypeScript's own parser: its name, or why it is not one. */
function readDeclaration(source: string): { name: string } | { problem: string } {
  const text = declarationText(source);
  const sf = ts.createSourceFile('declaration.ts', text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const parsed = (sf as unknown as { parseDiagnostics?: ts.Diagnostic[] }).parseDiagnostics ?? [];
  if (parsed.length)
    return { problem: `"${source}" does not parse as a declaration: ${ts.flattenDiagnosticMessageText(parsed[0]!.messageText, ' ')}` };
  const statements = sf.statements.filter((s) => !ts.isEmptyStatement(s));
  if (statements.length !== 1) return { problem: `"${source}" holds ${statements.length} statements; write one declaration per entry` };
  const s = statements[0]!;
  if (
    ts.isFunctionDeclaration(s) ||
    ts.isClassDeclaration(s) ||
    ts.isInterfaceDeclaration(s) ||
    ts.isTypeAliasDeclaration(s) ||
    ts.isEnumDeclaration(s)
  ) {
    if (!s.name) return { problem: `"${source}" has no name` };
    if (ts.isFunctionDeclaration(s) && s.body)
      return { problem: `"${source}" has a body: declare the signature only, the Coder writes the body` };
    if (ts.isFunctionDeclaration(s) && !s.type)
      return { problem: `"${source}" has no return type: write it, as in "function slug(title: string): string"` };
    return { name: s.name.text };
  }
  if (ts.isVariableStatement(s)) {
    const [d, ...more] = s.declarationList.declarations;
    if (!d || more.length || !ts.isIdentifier(d.name))
      return { problem: `"${source}" declares more than one name; write one declaration per entry` };
    if (d.initializer) return { problem: `"${source}" has a value: declare its type only, the Coder writes the value` };
    if (!d.type) return { problem: `"${source}" has no type: write it, as in "const LIMIT: number"` };
    return { name: d.name.text };
  }
  return { problem: `"${source}" is not a function, class, interface, type, enum or variable declaration` };
}

/**
 * declare: adds each declared export to the file's end as an ambient declaration, creating the
 * file when it does not exist. A name the file already declares is the ticket's mistake (it
 * changes that export, it does not create it), unless it is this op's own declaration, so a
 * second run writes nothing. The language service then checks the declarations themselves: a
 * type they name must resolve in the file.
 */
export async function declareExports(input: Omit<OpInput<OpOf<'declare'>>, 'text'> & { text: string | undefined }): Promise<OpResult> {
  const { op, file, lang, abs } = input;
  const names: string[] = [];
  for (const source of op.exports) {
    const read = readDeclaration(source);
    if ('problem' in read)
      return fail(
        read.problem,
        'write each export as one TypeScript declaration without a body, as in "function slug(title: string): string"',
      );
    if (names.includes(read.name)) return fail(`${read.name} is declared twice in the op`, 'declare each export once');
    names.push(read.name);
  }
  const text = input.text ?? '';
  const declared = text
    ? await input.syntax.read(file, text, (root) =>
        topLevelDeclarations(root).map((d) => ({ name: d.name, text: d.node.parent?.text ?? d.node.text })),
      )
    : [];
  for (const [i, name] of names.entries()) {
    const clash = declared.find((d) => d.name === name);
    if (clash && !text.includes(declarationText(op.exports[i]!))) {
      return fail(
        `${file} already declares ${name}, so the ticket changes it rather than creating it`,
        `drop ${name} from the declare op (a changeTypeAnnotation op changes a signature), or give the new export another name`,
      );
    }
  }
  const after = withDeclarations(input.text ?? null, op.exports);
  if (after === text && input.text !== undefined) return alreadyApplied;
  const before = input.text === undefined ? [] : lang.errors([abs]);
  const own = newErrors(
    before,
    lang.trial(new Map([[abs, after]]), () => lang.errors([abs])),
  ).filter((e) => e.start >= text.length);
  if (own.length) {
    const first = own[0]!;
    const suggestion = !UNKNOWN_NAME.has(first.code)
      ? 'correct the declarations so that they type-check'
      : input.text === undefined
        ? `name the type through its module, as in import('./types.js').Post: ${file} does not exist yet, so no addImport op can come before this one`
        : `make the name resolve in ${file}: put an addImport op before this one, or write the type out`;
    return fail(`the declarations do not type-check: ${own.map(describeError).join('; ')}`, suggestion, { at: { file, line: first.line } });
  }
  return { ok: true, edits: [{ path: file, before: text, after }] };
}
