import { join } from 'node:path';
// eslint-disable-next-line @typescript-eslint/no-require-imports -- esbuild must take the package's CommonJS entry: its ESM entry reads import.meta.url, which is empty in the CJS bundle.
import TreeSitter = require('web-tree-sitter');

export type SyntaxNode = TreeSitter.Node;

export interface TreeSitterOptions {
  /** Holds `tree-sitter-typescript.wasm` and `tree-sitter-tsx.wasm`: `dist/` at runtime. */
  wasmDir: string;
  /** Holds the runtime `web-tree-sitter.wasm`; defaults to `wasmDir`, where the build copies it. */
  runtimeWasmDir?: string;
}

type Grammar = 'typescript' | 'tsx';

/**
 * The one loader of web-tree-sitter and its TypeScript grammars, for the parse check and the
 * ops alike: the runtime and each grammar load once, on first use, and a failed load (a
 * missing .wasm) is tried again on the next parse rather than cached.
 */
export class TreeSitterGrammars {
  private readonly languages = new Map<Grammar, Promise<TreeSitter.Language>>();

  constructor(private readonly options: TreeSitterOptions) {}

  /** Runs `read` over the parse of `text`; the tree is freed after, since the GC cannot see the wasm heap. */
  async read<T>(path: string, text: string, read: (root: SyntaxNode) => T): Promise<T> {
    // The language first: a Parser cannot be built before the runtime's init().
    const language = await this.language(/\.[jt]sx$/i.test(path) ? 'tsx' : 'typescript');
    const parser = new TreeSitter.Parser().setLanguage(language);
    try {
      const tree = parser.parse(text);
      if (!tree) throw new Error(`tree-sitter returned no tree for ${path}`);
      try {
        return read(tree.rootNode);
      } finally {
        tree.delete();
      }
    } finally {
      parser.delete();
    }
  }

  private language(grammar: Grammar): Promise<TreeSitter.Language> {
    let language = this.languages.get(grammar);
    if (!language) {
      const runtimeDir = this.options.runtimeWasmDir ?? this.options.wasmDir;
      language = TreeSitter.Parser.init({ locateFile: (name: string) => join(runtimeDir, name) }).then(() =>
        TreeSitter.Language.load(join(this.options.wasmDir, `tree-sitter-${grammar}.wasm`)),
      );
      language.catch(() => this.languages.delete(grammar));
      this.languages.set(grammar, language);
    }
    return language;
  }
}
