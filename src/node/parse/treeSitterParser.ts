import { join } from 'node:path';
// eslint-disable-next-line @typescript-eslint/no-require-imports -- esbuild must take the package's CommonJS entry: its ESM entry reads import.meta.url, which is empty in the CJS bundle.
import TreeSitter = require('web-tree-sitter');
import type { ParserPort } from '../../core/ports/checks';
import type { ParseProblem } from '../../core/schema/checks';

export interface TreeSitterParserOptions {
  /** Holds `tree-sitter-typescript.wasm` and `tree-sitter-tsx.wasm`: `dist/` at runtime. */
  wasmDir: string;
  /** Holds the runtime `web-tree-sitter.wasm`; defaults to `wasmDir`, where the build copies it. */
  runtimeWasmDir?: string;
}

type Grammar = 'typescript' | 'tsx';

/** Past this many problems the rest is noise from one early mistake. */
const MAX_PROBLEMS = 50;
const MAX_TEXT = 80;

/** ParserPort over web-tree-sitter: reports ERROR and MISSING nodes. */
export class TreeSitterParser implements ParserPort {
  private runtime: Promise<void> | undefined;
  private readonly parsers = new Map<Grammar, Promise<TreeSitter.Parser>>();

  constructor(private readonly options: TreeSitterParserOptions) {}

  async parse(path: string, content: string): Promise<ParseProblem[]> {
    const parser = await this.parserFor(/\.[jt]sx$/i.test(path) ? 'tsx' : 'typescript');
    const tree = parser.parse(content);
    if (!tree) throw new Error(`tree-sitter returned no tree for ${path}`);
    try {
      return collectProblems(path, tree.rootNode);
    } finally {
      // Trees live in the wasm heap, not the JS one: the GC never frees them.
      tree.delete();
    }
  }

  private parserFor(grammar: Grammar): Promise<TreeSitter.Parser> {
    let parser = this.parsers.get(grammar);
    if (!parser) {
      parser = this.load(grammar);
      // A failed load (a missing .wasm) is retried on the next parse rather than cached.
      parser.catch(() => this.parsers.delete(grammar));
      this.parsers.set(grammar, parser);
    }
    return parser;
  }

  private async load(grammar: Grammar): Promise<TreeSitter.Parser> {
    this.runtime ??= TreeSitter.Parser.init({
      locateFile: (name: string) => join(this.options.runtimeWasmDir ?? this.options.wasmDir, name),
    }).catch((err: unknown) => {
      this.runtime = undefined;
      throw err;
    });
    await this.runtime;
    const language = await TreeSitter.Language.load(join(this.options.wasmDir, `tree-sitter-${grammar}.wasm`));
    return new TreeSitter.Parser().setLanguage(language);
  }
}

function collectProblems(file: string, root: TreeSitter.Node): ParseProblem[] {
  const problems: ParseProblem[] = [];
  const visit = (node: TreeSitter.Node): void => {
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

function problem(file: string, node: TreeSitter.Node, kind: ParseProblem['kind'], text: string): ParseProblem {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return {
    file,
    line: node.startPosition.row + 1,
    column: node.startPosition.column + 1,
    kind,
    text: oneLine.length > MAX_TEXT ? `${oneLine.slice(0, MAX_TEXT)}…` : oneLine,
  };
}
