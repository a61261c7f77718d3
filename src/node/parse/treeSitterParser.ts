import type { ParserPort } from '../../core/ports/checks';
import type { ParseProblem } from '../../core/schema/checks';
import { TreeSitterGrammars, type SyntaxNode, type TreeSitterOptions } from './treeSitter';

/** Past this many problems the rest is noise from one early mistake. */
const MAX_PROBLEMS = 50;
const MAX_TEXT = 80;

/** ParserPort over web-tree-sitter: reports ERROR and MISSING nodes. */
export class TreeSitterParser implements ParserPort {
  private readonly grammars: TreeSitterGrammars;

  constructor(options: TreeSitterOptions) {
    this.grammars = new TreeSitterGrammars(options);
  }

  parse(path: string, content: string): Promise<ParseProblem[]> {
    return this.grammars.read(path, content, (root) => collectProblems(path, root));
  }

  shape(path: string, content: string): Promise<string[]> {
    return this.grammars.read(path, content, codeShape);
  }
}

const IDENTIFIERS = new Set([
  'identifier',
  'property_identifier',
  'shorthand_property_identifier',
  'shorthand_property_identifier_pattern',
  'private_property_identifier',
  'type_identifier',
  'statement_identifier',
  'nested_identifier',
]);
const LITERALS = new Set(['string', 'template_string', 'number', 'regex']);
/** Nodes that make a unit of their own: what a diff of code reads as one change. */
const UNIT = /(_statement|_declaration|_definition|_signature)$|^(class_body|switch_case|switch_default|pair|enum_assignment)$/;

/** Statement by statement, identifiers and literals abstracted (ParserPort.shape). */
function codeShape(root: SyntaxNode): string[] {
  const units: string[] = [];
  const visit = (node: SyntaxNode, unit: string[]): void => {
    if (node.type === 'comment') return;
    if (IDENTIFIERS.has(node.type)) return void unit.push('$id');
    if (LITERALS.has(node.type)) return void unit.push('$lit');
    if (node.childCount === 0) return void unit.push(node.isNamed ? node.text : node.type);
    // A nested statement is its own unit; its parent keeps only its own tokens (an if's condition, a function's head).
    const own = UNIT.test(node.type) ? [] : unit;
    for (const child of node.children) if (child) visit(child, own);
    if (own !== unit && own.length) units.push(own.join(' '));
  };
  const top: string[] = [];
  visit(root, top);
  if (top.length) units.push(top.join(' '));
  return units;
}

function collectProblems(file: string, root: SyntaxNode): ParseProblem[] {
  const problems: ParseProblem[] = [];
  const visit = (node: SyntaxNode): void => {
    if (problems.length >= MAX_PROBLEMS) return;
    if (node.isMissing) {
      problems.push(problem(file, node, 'MISSING', node.type));
      return;
    }
    if (node.isError) {
      problems.push(problem(file, node, 'ERROR', node.text));
      // An ERROR node's own subtree is the unparsed text: its inner errors add nothing.
      return;
    }
    // hasError covers MISSING descendants too, so clean subtrees are skipped whole.
    if (!node.hasError) return;
    for (const child of node.children) if (child) visit(child);
  };
  visit(root);
  return problems;
}

function problem(file: string, node: SyntaxNode, kind: ParseProblem['kind'], text: string): ParseProblem {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return {
    file,
    line: node.startPosition.row + 1,
    column: node.startPosition.column + 1,
    kind,
    text: oneLine.length > MAX_TEXT ? `${oneLine.slice(0, MAX_TEXT)}…` : oneLine,
  };
}
