import type { OpResult } from '../../core/ports/ops';
import { alreadyApplied, fail, finishEdit, indentAt, splice, type OpInput, type OpOf } from './common';
import { hasToken, stringValue, type SyntaxNode } from './syntax';

/** One name to import: `a`, `a as b`, `type T`. */
interface WantedName {
  text: string;
  imported: string;
  local: string;
}

const NAME = /^(type\s+)?([A-Za-z_$][\w$]*)(?:\s+as\s+([A-Za-z_$][\w$]*))?$/;

/** An import statement, read into plain data while its tree is alive. */
interface ImportInfo {
  start: number;
  end: number;
  source: string | undefined;
  typeOnly: boolean;
  quote: string;
  semicolon: boolean;
  defaultName?: { end: number };
  namespace: boolean;
  named?: { start: number; end: number; multiline: boolean; specifiers: { imported: string; local: string; end: number }[] };
}

function readImport(node: SyntaxNode): ImportInfo {
  const sourceNode = node.childForFieldName('source');
  const clause = node.namedChildren.find((c) => c.type === 'import_clause');
  const named = clause?.namedChildren.find((c) => c.type === 'named_imports');
  const def = clause?.namedChildren.find((c) => c.type === 'identifier');
  return {
    start: node.startIndex,
    end: node.endIndex,
    source: stringValue(sourceNode),
    typeOnly: hasToken(node, 'type'),
    quote: sourceNode?.text.charAt(0) ?? "'",
    semicolon: node.text.trimEnd().endsWith(';'),
    defaultName: def ? { end: def.endIndex } : undefined,
    namespace: !!clause?.namedChildren.some((c) => c.type === 'namespace_import'),
    named: named && {
      start: named.startIndex,
      end: named.endIndex,
      multiline: named.text.includes('\n'),
      specifiers: named.namedChildren
        .filter((s) => s.type === 'import_specifier')
        .map((s) => {
          const imported = s.childForFieldName('name')?.text ?? '';
          return { imported, local: s.childForFieldName('alias')?.text ?? imported, end: s.endIndex };
        }),
    },
  };
}

/** Where a new import statement goes when the file has none: after a leading "use strict" and comments. */
function firstStatement(root: SyntaxNode): number {
  for (const n of root.namedChildren) {
    if (n.type === 'comment' || n.type === 'hash_bang_line') continue;
    if (n.type === 'expression_statement' && n.namedChildren[0]?.type === 'string') continue;
    return n.startIndex;
  }
  return root.endIndex;
}

/**
 * addImport: merges the names into a value import of the module when the file has one (also
 * `import def from` gains `{ … }`), otherwise adds a statement after the last import. Names
 * already imported from the module are skipped, so a second run of the op writes nothing.
 * The language service then checks the statement: the module resolves and exports each name.
 */
export async function addImport(input: OpInput<OpOf<'addImport'>>): Promise<OpResult> {
  const { op, file, text } = input;
  const wanted: WantedName[] = [];
  for (const raw of op.names) {
    const m = NAME.exec(raw.trim());
    if (!m) return fail(`"${raw}" is not an import name`, 'write each name as `name`, `name as alias` or `type Name`');
    wanted.push({ text: raw.trim().replace(/\s+/g, ' '), imported: m[2]!, local: m[3] ?? m[2]! });
  }
  const { imports, top } = await input.syntax.read(file, text, (root) => ({
    imports: root.namedChildren.filter((n) => n.type === 'import_statement').map(readImport),
    top: firstStatement(root),
  }));
  const fromModule = imports.filter((i) => i.source === op.from);
  const has = (w: WantedName) => fromModule.some((i) => i.named?.specifiers.some((s) => s.imported === w.imported && s.local === w.local));
  const missing = wanted.filter((w) => !has(w));
  if (!missing.length) return alreadyApplied;
  for (const w of missing) {
    const clash = imports.find((i) => i.source !== op.from && i.named?.specifiers.some((s) => s.local === w.local));
    if (clash)
      return fail(`${file} already imports ${w.local} from '${clash.source ?? '?'}'`, `import it under another name: "${w.imported} as …"`);
  }

  const into =
    fromModule.find((i) => !i.typeOnly && !i.namespace && i.named) ?? fromModule.find((i) => !i.typeOnly && !i.namespace && i.defaultName);
  let after: string;
  let span: { start: number; end: number };
  if (into?.named) {
    const { named } = into;
    const last = named.specifiers[named.specifiers.length - 1];
    const indent = last ? indentAt(text, last.end) : '';
    const insert = !last
      ? `{ ${missing.map((w) => w.text).join(', ')} }`
      : named.multiline
        ? missing.map((w) => `,\n${indent}${w.text}`).join('')
        : missing.map((w) => `, ${w.text}`).join('');
    after = last ? splice(text, last.end, last.end, insert) : splice(text, named.start, named.end, insert);
    span = { start: into.start, end: into.end + insert.length - (last ? 0 : named.end - named.start) };
  } else if (into?.defaultName) {
    const insert = `, { ${missing.map((w) => w.text).join(', ')} }`;
    after = splice(text, into.defaultName.end, into.defaultName.end, insert);
    span = { start: into.start, end: into.end + insert.length };
  } else {
    const style = imports[0] ?? { quote: "'", semicolon: true };
    const statement = `import { ${missing.map((w) => w.text).join(', ')} } from ${style.quote}${op.from}${style.quote}${style.semicolon ? ';' : ''}`;
    const lastImport = imports[imports.length - 1];
    const at = lastImport ? lastImport.end : top;
    const insert = lastImport ? `\n${statement}` : `${statement}\n${at < text.length ? '\n' : ''}`;
    after = splice(text, at, at, insert);
    span = lastImport ? { start: at + 1, end: at + insert.length } : { start: at, end: at + statement.length };
  }
  return finishEdit(input, after, span, `the import from '${op.from}'`);
}
