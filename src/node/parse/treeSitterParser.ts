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
