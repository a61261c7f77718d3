import { TreeSitterGrammars, type SyntaxNode } from '../parse/treeSitter';

export type { SyntaxNode };

/**
 * Tree-sitter for the ops: it finds the declaration an op names, whatever state the rest of
 * the file is in.
 */
export type OpsSyntax = TreeSitterGrammars;

export type DeclarationKind = 'function' | 'class' | 'interface' | 'type' | 'enum' | 'variable' | 'namespace';

/** A top-level declaration: `node` is the declaration itself (a variable's declarator), `name` its name node. */
export interface Declaration {
  name: string;
  kind: DeclarationKind;
  node: SyntaxNode;
  nameNode: SyntaxNode;
}

const KINDS: Record<string, DeclarationKind> = {
  function_declaration: 'function',
  generator_function_declaration: 'function',
  function_signature: 'function',
  class_declaration: 'class',
  abstract_class_declaration: 'class',
  interface_declaration: 'interface',
  type_alias_declaration: 'type',
  enum_declaration: 'enum',
  internal_module: 'namespace',
  module: 'namespace',
};

/** The file's top-level declarations, looking through `export` and `declare`. */
export function topLevelDeclarations(root: SyntaxNode): Declaration[] {
  const out: Declaration[] = [];
  const visit = (node: SyntaxNode): void => {
    if (node.type === 'export_statement' || node.type === 'ambient_declaration') {
      for (const child of node.namedChildren) visit(child);
      return;
    }
    if (node.type === 'lexical_declaration' || node.type === 'variable_declaration') {
      for (const d of node.namedChildren.filter((c) => c.type === 'variable_declarator')) {
        const nameNode = d.childForFieldName('name');
        // A destructuring pattern declares several names at once: no single target.
        if (nameNode?.type === 'identifier') out.push({ name: nameNode.text, kind: 'variable', node: d, nameNode });
      }
      return;
    }
    const kind = KINDS[node.type];
    const nameNode = node.childForFieldName('name');
    if (kind && nameNode) out.push({ name: nameNode.text.replace(/^['"]|['"]$/g, ''), kind, node, nameNode });
  };
  for (const child of root.namedChildren) visit(child);
  return out;
}

/** The value of a string literal node, without its quotes. */
export function stringValue(node: SyntaxNode | null): string | undefined {
  if (!node || node.type !== 'string') return undefined;
  return node.namedChildren
    .filter((c) => c.type === 'string_fragment' || c.type === 'escape_sequence')
    .map((c) => c.text)
    .join('');
}

/** Does `node` have an anonymous child token with this text (`type`, `?`, `readonly`)? */
export function hasToken(node: SyntaxNode, token: string): boolean {
  return node.children.some((c) => !c.isNamed && c.type === token);
}

/** ERROR or MISSING nodes that overlap [start, end): text an op wrote that does not parse. */
export function syntaxErrorsIn(root: SyntaxNode, start: number, end: number): SyntaxNode[] {
  const out: SyntaxNode[] = [];
  const visit = (node: SyntaxNode): void => {
    if (node.startIndex > end || node.endIndex < start) return;
    if (node.isError || node.isMissing) {
      out.push(node);
      return;
    }
    // hasError covers MISSING descendants too, so clean subtrees are skipped whole.
    if (node.hasError) for (const child of node.children) visit(child);
  };
  visit(root);
  return out;
}

/** A name from `candidates` the author probably meant: the same but for case, or one or two letters off. */
export function nearestName(name: string, candidates: readonly string[]): string | undefined {
  const lower = name.toLowerCase();
  const exact = candidates.find((c) => c.toLowerCase() === lower);
  if (exact) return exact;
  const limit = name.length <= 4 ? 1 : 2;
  let best: { name: string; distance: number } | undefined;
  for (const c of candidates) {
    const d = editDistance(lower, c.toLowerCase());
    if (d <= limit && (!best || d < best.distance)) best = { name: c, distance: d };
  }
  return best?.name;
}

/** Edits between two names, a swap of two neighbouring letters counting as one (Pots for Post). */
function editDistance(a: string, b: string): number {
  const rows: number[][] = [Array.from({ length: b.length + 1 }, (_, j) => j)];
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const up = rows[i - 1]!;
      let d = Math.min(up[j]! + 1, row[j - 1]! + 1, up[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, rows[i - 2]![j - 2]! + 1);
      row.push(d);
    }
    rows.push(row);
  }
  return rows[a.length]![b.length]!;
}

/** The line (1-based) of an offset in `text`. */
export function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}
